import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager, type ConsumerMessages } from '@nats-io/jetstream';
import { connectNatsUnlessAborted, type Logger, type NatsConnection } from '@inventario/platform';
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
 * gateway"), with the read cache's rule (cache/event-follower.ts): one
 * ephemeral consumer from "new" over `<prefix>.identidad.>`; a revoking
 * event empties the cache; anything that may have cost an event (a
 * disconnect, missed heartbeats, a gap in the delivery sequence, the
 * consumer gone, any error) bypasses it, and it serves again only once a
 * new consumer is confirmed. So a revocation reaches every replica within
 * the event's delivery time, and a replica that cannot hear events verifies
 * every request with identidad-svc.
 */
export function startIdentityFollower(options: IdentityFollowerOptions): IdentityFollower {
  const { cache, logger, stream, prefix } = options;
  const heartbeatMs = options.idleHeartbeatMs ?? 1000;
  const abort = new AbortController();
  const revocadores = new Set(REVOCADORES.map((kind) => `${prefix}.${kind}`));
  let nc: NatsConnection | undefined;
  let current: ConsumerMessages | undefined;

  function doubt(reason: string, err?: unknown): void {
    const wasServing = !cache.bypassed;
    cache.bypass();
    if (wasServing && !abort.signal.aborted)
      logger.warn({ reason, err }, 'credential cache bypassed: the identity events cannot vouch for it');
    const messages = current;
    current = undefined;
    messages?.stop();
  }

  async function followOnce(connection: NatsConnection): Promise<void> {
    cache.bypass();
    const epoch = cache.epoch;
    const jsm = await jetstreamManager(connection);
    const info = await jsm.consumers.add(stream, {
      // The chart's `bff` NATS user may manage consumers named bff-… only.
      name: `bff-auth-${randomUUID()}`,
      deliver_policy: DeliverPolicy.New,
      ack_policy: AckPolicy.None,
      filter_subject: `${prefix}.identidad.>`,
      mem_storage: true,
      num_replicas: 1,
      inactive_threshold: 30_000 * 1_000_000,
    });
    const consumer = await jetstream(connection).consumers.get(stream, info.name);
    const messages = await consumer.consume({ idle_heartbeat: heartbeatMs, max_messages: 256 });
    current = messages;
    void (async () => {
      for await (const status of messages.status()) {
        if (
          [
            'heartbeats_missed',
            'consumer_not_found',
            'consumer_deleted',
            'stream_not_found',
            'reset',
            'no_responders',
          ].includes(status.type)
        ) {
          doubt(`subscription: ${status.type}`);
        }
      }
    })().catch((err: unknown) => doubt('subscription status failed', err));
    if (!cache.resume(epoch)) {
      messages.stop();
      return;
    }
    logger.info({ consumer: info.name }, 'credential cache following the identity events');
    let expected = 1;
    try {
      for await (const m of messages) {
        if (m.info.deliverySequence !== expected)
          throw new Error(`delivery sequence ${m.info.deliverySequence}, expected ${expected}`);
        expected++;
        if (revocadores.has(m.subject)) cache.invalidate();
      }
    } finally {
      messages.stop();
      if (!abort.signal.aborted) void jsm.consumers.delete(stream, info.name).catch(() => undefined);
    }
    if (current === messages) throw new Error('subscription ended');
  }

  async function run(): Promise<void> {
    const connection = await connectNatsUnlessAborted(
      options.natsUrl,
      'bff-auth',
      logger,
      abort.signal,
      options.credentials,
    );
    nc = connection;
    void (async () => {
      for await (const s of connection.status()) {
        if (
          s.type === 'disconnect' ||
          s.type === 'reconnect' ||
          s.type === 'staleConnection' ||
          s.type === 'ldm' ||
          s.type === 'error'
        )
          doubt(`nats ${s.type}`);
      }
    })();
    while (!abort.signal.aborted && !connection.isClosed()) {
      try {
        await followOnce(connection);
      } catch (err) {
        doubt('subscription failed', err);
        await sleep(500, undefined, { signal: abort.signal }).catch(() => undefined);
      }
    }
  }

  const running = run().catch((err: unknown) => {
    if (!abort.signal.aborted)
      logger.error({ err }, 'identity event follower stopped; the credential cache stays bypassed');
  });

  return {
    async stop() {
      abort.abort();
      cache.bypass();
      current?.stop();
      if (nc && !nc.isClosed()) await nc.close().catch(() => undefined);
      await running;
    },
  };
}
