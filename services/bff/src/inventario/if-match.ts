import { NotFoundError, VersionMismatchError } from '@inventario/platform';
import type { WriteOptions } from './model';

export interface IfMatchDeps {
  /** See InventarioDeps.onSafeWriteOutcome: the BFF's own refusals on If-Match. */
  onSafeWriteOutcome?: (outcome: 'version_mismatch') => void;
}

/**
 * Runs a write of an existing record under `If-Match: *`, which asks only
 * that the record exist: without it the answer is a failed precondition
 * (HTTP semantics), not a plain 404. A numeric If-Match is the service's
 * to check, inside the write's transaction.
 */
export async function conditional<T>(deps: IfMatchDeps, write: WriteOptions, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    throw failureUnder(deps, write, err);
  }
}

/** What a failure of a write means under its If-Match (see conditional). */
export function failureUnder({ onSafeWriteOutcome }: IfMatchDeps, write: WriteOptions, err: unknown): unknown {
  if (write.ifMatch !== '*' || !(err instanceof NotFoundError)) return err;
  onSafeWriteOutcome?.('version_mismatch');
  return new VersionMismatchError(null, `el recurso no existe (${err.message})`);
}

/** The early check of a condition on a record the BFF has read; the service checks again when it writes. */
export function requireIfMatch(
  { onSafeWriteOutcome }: IfMatchDeps,
  current: { version: number },
  write: WriteOptions,
): void {
  if (typeof write.ifMatch !== 'number' || write.ifMatch === current.version) return;
  onSafeWriteOutcome?.('version_mismatch');
  throw VersionMismatchError.of(current.version, write.ifMatch);
}
