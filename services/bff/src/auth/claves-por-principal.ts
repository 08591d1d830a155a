import { createHash } from 'node:crypto';
import type { ReservaClient } from '../downstream/reserva-client';
import type { Caller, InventarioApi, WriteOptions } from '../inventario/model';

/**
 * Idempotency keys scoped by principal id (issue 26, docs/contract.md §12,
 * "Who did what"): another principal's repeat of a key executes as a new
 * request and never sees the first one's stored answer.
 *
 * producto-svc and bodega-svc store a key under (user name, method, key);
 * the user name can be renamed and given to someone else, who would then
 * replay the first user's answers. So the gateway names the principal's
 * stable id inside the key it forwards: `p<id>:<key>`, or, when that would
 * pass the 255 characters a key may have, `p<id>#<SHA-256 of the key>` (a
 * different separator, so the two forms never meet). The same principal by
 * password or by token has one id, so it still replays its own keys.
 * Without identidad-svc (the one shared credential, principal id 0, which
 * names no user) keys pass unchanged, as before.
 *
 * Services that verify the principal (IDENTIDAD_SVC_ADDR set) scope keys by
 * its id themselves, and this is redundant there; one that does not scopes by
 * the user name, and there a renamed user's earlier keys execute anew.
 */
export function clavePorPrincipal(caller: Caller, key: string): string {
  const id = caller.principal?.id;
  if (id === undefined || id === 0) return key;
  const scoped = `p${id}:${key}`;
  return scoped.length <= 255 ? scoped : `p${id}#${createHash('sha256').update(key).digest('base64url')}`;
}

function isWriteOptions(value: unknown): value is WriteOptions {
  return typeof value === 'object' && value !== null && typeof (value as WriteOptions).idempotencyKey === 'string';
}

/**
 * Every method of `inner` (use cases taking the caller first and, when they write, their WriteOptions last), with a
 * client's key rewritten as above. Generic over the methods so a write use case added later is covered too.
 */
function conClaves<T extends object>(inner: T): T {
  const out: Record<string, unknown> = {};
  for (const [name, method] of Object.entries(inner as Record<string, unknown>)) {
    if (typeof method !== 'function') continue;
    out[name] = (caller: Caller, ...args: unknown[]) => {
      const last = args.at(-1);
      if (isWriteOptions(last))
        args[args.length - 1] = { ...last, idempotencyKey: clavePorPrincipal(caller, last.idempotencyKey!) };
      return (method as (...a: unknown[]) => unknown).call(inner, caller, ...args);
    };
  }
  return out as T;
}

export const conClavesPorPrincipal = (inner: InventarioApi): InventarioApi => conClaves(inner);
export const conClavesDeReservasPorPrincipal = (inner: ReservaClient): ReservaClient => conClaves(inner);
