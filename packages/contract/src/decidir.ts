import { alcanceDe, ROLES, type Asignacion, type Permiso } from './permisos';

/**
 * The authorization decision (docs/decisions.md, "Identities and
 * authorization"), one pure function per question so the BFF's REST and
 * GraphQL and the services' own checks cannot drift apart.
 */

/** Where a permission holds: every warehouse (`'*'`) or the listed ones. */
export type Donde = '*' | ReadonlySet<number>;

/**
 * Effective permissions: what a principal may do, and where. A permission
 * absent from the map is denied (deny by default: no binding, no right).
 */
export type Permisos = ReadonlyMap<Permiso, Donde>;

function unir(a: Donde | undefined, b: Donde): Donde {
  if (a === undefined) return b;
  if (a === '*' || b === '*') return '*';
  return new Set([...a, ...b]);
}

/**
 * What a set of bindings grants. A binding without a warehouse grants its
 * role's permissions everywhere; one with a warehouse grants only the
 * role's warehouse-scoped permissions, there: a global permission (a
 * product, a user) names no warehouse, so a scoped binding cannot hold it.
 * Bindings add up.
 */
export function permisosDe(asignaciones: readonly Asignacion[]): Permisos {
  const out = new Map<Permiso, Donde>();
  for (const { rol, bodegaId } of asignaciones) {
    for (const permiso of ROLES[rol]) {
      if (bodegaId === null) out.set(permiso, '*');
      else if (alcanceDe(permiso) === 'bodega') out.set(permiso, unir(out.get(permiso), new Set([bodegaId])));
    }
  }
  return out;
}

/** The rights present in both: a token's scope against its owner's current rights. */
export function interseccion(a: Permisos, b: Permisos): Permisos {
  const out = new Map<Permiso, Donde>();
  for (const [permiso, donde] of a) {
    const otro = b.get(permiso);
    if (otro === undefined) continue;
    if (donde === '*') out.set(permiso, otro);
    else if (otro === '*') out.set(permiso, donde);
    else {
      const comunes = new Set([...donde].filter((id) => otro.has(id)));
      if (comunes.size > 0) out.set(permiso, comunes);
    }
  }
  return out;
}

/** Whether every right of `a` is also in `b`. */
export function contenidoEn(a: Permisos, b: Permisos): boolean {
  for (const [permiso, donde] of a) {
    const otro = b.get(permiso);
    if (otro === undefined) return false;
    if (otro === '*') continue;
    if (donde === '*') return false;
    for (const id of donde) if (!otro.has(id)) return false;
  }
  return true;
}

export type Decision = { permitido: true } | { permitido: false; permiso: Permiso; bodegaId?: number };

/**
 * Whether `permisos` allow `permiso` on **every** warehouse in `bodegas`
 * (a transfer names both ends, a reversal every warehouse in its lines).
 * With no warehouse named, the permission must be held somewhere: a list
 * over warehouses is then filtered by bodegasVisibles. A refusal names the
 * permission and the first warehouse it is missing on (the 403 body).
 */
export function decidir(permisos: Permisos, permiso: Permiso, bodegas: readonly number[] = []): Decision {
  const donde = permisos.get(permiso);
  if (donde === undefined) return { permitido: false, permiso };
  if (donde === '*') return { permitido: true };
  for (const bodegaId of bodegas) if (!donde.has(bodegaId)) return { permitido: false, permiso, bodegaId };
  return { permitido: true };
}

/** The warehouses a list may show for `permiso`: all, some (possibly none). A filter never widens it. */
export function bodegasVisibles(permisos: Permisos, permiso: Permiso): '*' | number[] {
  const donde = permisos.get(permiso);
  if (donde === undefined) return [];
  if (donde === '*') return '*';
  return [...donde].sort((a, b) => a - b);
}

/**
 * No escalation: a principal may grant (or take away) only rights it
 * holds itself. Checked on every binding added or removed by a change, so
 * a scoped administrator cannot widen, nor quietly narrow, what lies beyond
 * its reach. Returns the first right it lacks.
 */
export function puedeConceder(concedente: Permisos, asignaciones: readonly Asignacion[]): Decision {
  // An ADMIN binding, even on one warehouse, also carries every permission the catalogue will ever
  // add: more than any pair held today, so only who holds every permission everywhere grants it.
  if (asignaciones.some((a) => a.rol === 'ADMIN') && !esAdminGlobal(concedente))
    return { permitido: false, permiso: 'usuarios:administrar' };
  return cubre(concedente, permisosDe(asignaciones));
}

/** Holds every permission of the catalogue on every warehouse: what a global ADMIN binding gives. */
export function esAdminGlobal(permisos: Permisos): boolean {
  return ROLES.ADMIN.every((permiso) => permisos.get(permiso) === '*');
}

/** Whether `concedente` holds every right of `pedidos`; the first missing one otherwise. */
export function cubre(concedente: Permisos, pedidos: Permisos): Decision {
  for (const [permiso, donde] of pedidos) {
    const decision = decidir(concedente, permiso, donde === '*' ? [] : [...donde]);
    if (!decision.permitido) return decision;
    if (donde === '*' && concedente.get(permiso) !== '*') return { permitido: false, permiso };
  }
  return { permitido: true };
}

/** The wire form of effective permissions: one entry per permission, `bodegaIds` ascending when not everywhere. */
export interface PermisoEfectivo {
  permiso: Permiso;
  todasLasBodegas: boolean;
  bodegaIds: number[];
}

export function aLista(permisos: Permisos): PermisoEfectivo[] {
  return [...permisos].map(([permiso, donde]) =>
    donde === '*'
      ? { permiso, todasLasBodegas: true, bodegaIds: [] }
      : { permiso, todasLasBodegas: false, bodegaIds: [...donde].sort((a, b) => a - b) },
  );
}

/**
 * Entries without any warehouse grant nothing and are dropped, as is a
 * global permission limited to warehouses (it names none); repeated entries add up.
 */
export function deLista(lista: readonly PermisoEfectivo[]): Permisos {
  const out = new Map<Permiso, Donde>();
  for (const { permiso, todasLasBodegas, bodegaIds } of lista) {
    if (todasLasBodegas) out.set(permiso, '*');
    else if (bodegaIds.length > 0 && alcanceDe(permiso) === 'bodega')
      out.set(permiso, unir(out.get(permiso), new Set(bodegaIds)));
  }
  return out;
}
