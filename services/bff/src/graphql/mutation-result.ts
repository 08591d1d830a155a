import {
  DomainError,
  IdempotencyKeyReusedError,
  InvalidArgumentError,
  VersionMismatchError,
} from '@inventario/platform';
import {
  BodegaConProductosError,
  DeadlineExceededError,
  PreconditionRequiredError,
  SentenciaDetenidaError,
} from '../inventario/errors';

/**
 * Mutation failures are data, not errors (docs/contract.md §4.4). Only the closed set of expected
 * failures is; anything else is a bug and propagates as a GraphQL error.
 */

export interface MutationResponse {
  success: boolean;
  message: string;
  error: string | null;
}

const GRAPHQL_CAMPO: Readonly<Record<string, string>> = {
  cantidadEnStock: 'cantidad',
  'Idempotency-Key': 'idempotencyKey',
};

const MAX_IDS_SHOWN = 10;

export function failureText(err: unknown): string | undefined {
  if (err instanceof IdempotencyKeyReusedError)
    return `IDEMPOTENCY_KEY_REUSED: idempotencyKey ${err.violations[0]?.mensaje ?? ''}`;
  if (err instanceof InvalidArgumentError) {
    return err.violations.map((v) => `${GRAPHQL_CAMPO[v.campo] ?? v.campo}: ${v.mensaje}`).join('; ');
  }
  if (err instanceof BodegaConProductosError) {
    // GraphQL has no `force` (the schema is the contract's, §4.2); say how to proceed without it.
    const shown = err.productos.slice(0, MAX_IDS_SHOWN).map((p) => p.id);
    const ids = shown.join(', ') + (err.total > shown.length ? ', …' : '');
    if (err.conExistencias) {
      return (
        `La bodega ${err.bodegaId} tiene ${err.total} producto(s) asignado(s) o con existencias (ids ${ids}); ` +
        'reasígnelos o elimínelos, y retire sus existencias con retirarProductoDeBodega, antes de eliminar la bodega'
      );
    }
    return (
      `La bodega ${err.bodegaId} tiene ${err.total} producto(s) asignado(s) (ids ${ids}); ` +
      'reasígnelos o elimínelos antes de eliminar la bodega'
    );
  }
  if (err instanceof SentenciaDetenidaError) return err.message;
  if (err instanceof DeadlineExceededError) {
    return `${err.message}; la operación pudo haberse aplicado, compruébelo antes de reintentar`;
  }
  // The conflicts of a safe write start with their REST code, so a client can tell them apart.
  if (err instanceof VersionMismatchError) return `PRECONDITION_FAILED: conflicto de versión, ${err.message}`;
  if (err instanceof PreconditionRequiredError) return `${err.code}: ${err.message}`;
  if (err instanceof DomainError && err.reason !== undefined) return `${err.reason}: ${err.message}`;
  if (err instanceof DomainError) return err.message;
  return undefined;
}

export async function mutationResponse<T, R extends object>(
  work: () => Promise<T>,
  messages: { ok: string; fail: string },
  shape: { onSuccess: (value: T) => R; onFailure: R },
): Promise<MutationResponse & R> {
  let value: T;
  try {
    value = await work();
  } catch (err) {
    const error = failureText(err);
    if (error === undefined) throw err;
    return { success: false, message: messages.fail, error, ...shape.onFailure };
  }
  return { success: true, message: messages.ok, error: null, ...shape.onSuccess(value) };
}
