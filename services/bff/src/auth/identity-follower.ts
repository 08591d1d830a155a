import type { Logger } from '@inventario/platform';
import { followStream } from '../cache/stream-follower';
import type { CredentialCache } from './credential-cache';

export interface IdentityFollowerOptions {
  natsUrl: string;
  credentials?: { user: string; pass: string };
  stream: string;
  /** The subject prefix the services publish under (`inventario`). */
  prefix: string;
  cache: CredentialCache;
  logger: Logger;
  /** Server heartbeat period; two missed in a row are a doubt. Default 1000. */
  idleHeartbeatMs?: number;
}

export interface IdentityFollower {
  stop(): Promise<void>;
}

/**
 * The identity events that may take a right away: a password change, a
 * suspension, a bindings change or a rename (UsuarioActualizado), a deleted
 * user, a revoked token. Creations take nothing away.
 */
const REVOCADORES = ['identidad.usuario.actualizado', 'identidad.usuario.eliminado', 'identidad.token.revocado'];

/**
 * Keeps the credential cache honest (docs/decisions.md, "Identities at the
 * gateway"), with the read cache's rule (cache/stream-follower.ts): one
 * ephemeral consumer from "new" over `<prefix>.identidad.>`; a revoking
 * event empties the cache; anything that may have cost an event (a
 * disconnect, missed heartbeats, a gap in the delivery sequence, the
 * consumer gone, any error) bypasses it, and it serves again only once a
 * new consumer is confirmed. So a revocation reaches every replica within
 * the event's delivery time, and a replica that cannot hear events verifies
 * every request with identidad-svc.
 */
export function startIdentityFollower(options: IdentityFollowerOptions): IdentityFollower {
  const { cache, prefix } = options;
  const revocadores = new Set(REVOCADORES.map((kind) => `${prefix}.${kind}`));
  return followStream({
    natsUrl: options.natsUrl,
    credentials: options.credentials,
    stream: options.stream,
    filterSubject: `${prefix}.identidad.>`,
    connectionName: 'bff-auth',
    consumerPrefix: 'bff-auth',
    cache,
    logger: options.logger,
    idleHeartbeatMs: options.idleHeartbeatMs,
    says: {
      bypassed: 'credential cache bypassed: the identity events cannot vouch for it',
      following: 'credential cache following the identity events',
      stopped: 'identity event follower stopped; the credential cache stays bypassed',
    },
    handle: (m) => {
      if (revocadores.has(m.subject)) cache.invalidate();
    },
  });
}
