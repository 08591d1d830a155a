import { bodegasVisibles, decidir, type Permiso } from '@inventario/contract';
import { NotFoundError, PermissionDeniedError, type CallContext } from '@inventario/platform';

/**
 * "Enforced where the data is" (docs/contract.md §12.9): bodega-svc judges
 * every stock command again on its caller's verified principal, with the
 * same `decidir` the gateway uses, so a caller that reaches it directly (an
 * internal service token, or a gateway with a bug) gets no more than its
 * scopes. A call without a principal (REQUIRE_PRINCIPAL=false, or the
 * service's own work) is the legacy trusted caller and is not judged here.
 */

const mensaje = (permiso: Permiso, bodegaId?: number) =>
  bodegaId === undefined ? `No tiene el permiso ${permiso}` : `No tiene el permiso ${permiso} en la bodega ${bodegaId}`;

/** PERMISSION_DENIED (the gateway's 403 FORBIDDEN) unless `permiso` holds on every warehouse of `bodegas`. */
export function exigirEn(caller: CallContext, permiso: Permiso, bodegas: readonly number[] = []): void {
  if (!caller.principal) return;
  const decision = decidir(caller.principal.permisos, permiso, bodegas);
  if (decision.permitido) return;
  // Not held anywhere: the command's first warehouse is named, as the gateway names it (autorizacion.ts).
  const bodegaId = decision.bodegaId ?? bodegas[0];
  throw new PermissionDeniedError(mensaje(decision.permiso, bodegaId), {
    permiso: decision.permiso,
    ...(bodegaId !== undefined ? { bodegaId } : {}),
  });
}

/**
 * The warehouses a list may show: undefined for all (no principal, or the
 * permission everywhere), else the ids the principal holds `permiso` on,
 * for the list's SQL filter.
 */
export function bodegasDeLista(caller: CallContext, permiso: Permiso): number[] | undefined {
  if (!caller.principal) return undefined;
  const donde = bodegasVisibles(caller.principal.permisos, permiso);
  return donde === '*' ? undefined : donde;
}

/**
 * A list's warehouse filter narrowed to what the caller may see: the
 * requested ids it may see (all of them when none was requested), or
 * `undefined` when nothing needs narrowing. An empty answer means an empty
 * page (a filter on an out-of-scope warehouse shows nothing, not an error).
 */
export function filtroDeBodegas(
  caller: CallContext,
  permiso: Permiso,
  pedidas: readonly number[],
): number[] | undefined {
  const visibles = bodegasDeLista(caller, permiso);
  if (visibles === undefined) return undefined;
  if (pedidas.length === 0) return visibles;
  const set = new Set(visibles);
  return pedidas.filter((id) => set.has(id));
}

/**
 * A read of one warehouse's stock out of the caller's scope answers exactly as a missing warehouse
 * (the store's own error): no existence oracle (docs/contract.md §12.7).
 */
export function verEn(caller: CallContext, bodegaId: number): void {
  if (!caller.principal || decidir(caller.principal.permisos, 'existencias:leer', [bodegaId]).permitido) return;
  throw NotFoundError.campos([{ campo: 'bodegaId', mensaje: `no existe la bodega ${bodegaId}` }]);
}

/** An operation is visible only when every line's warehouse is; otherwise it answers as a missing one. */
export function verOperacion(caller: CallContext, id: number, bodegas: readonly number[]): void {
  if (!caller.principal || decidir(caller.principal.permisos, 'existencias:leer', bodegas).permitido) return;
  throw new NotFoundError(`No existe la operación con id ${id}`);
}

/** Whether the principal (if any) may read the stock of every warehouse in `bodegas`. */
export function visible(caller: CallContext, bodegas: readonly number[]): boolean {
  return !caller.principal || decidir(caller.principal.permisos, 'existencias:leer', bodegas).permitido;
}
