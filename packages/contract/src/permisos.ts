/**
 * The closed permission catalogue and the built-in roles (docs/contract.md
 * §12.2). Code-defined on purpose: a permission is a promise the code keeps
 * in every surface, so it cannot be invented at run time; custom roles, when
 * they come, will be data over this same catalogue.
 */

/**
 * `bodega`: may be granted on some warehouses only (stock and what is read
 * through a warehouse); `global`: granted only by a binding without a
 * warehouse, since it names no warehouse (products, users, the audit).
 */
export type Alcance = 'bodega' | 'global';

/** Every permission, `recurso:accion`, with its reach. Order is the catalogue's display order. */
export const CATALOGO = {
  'productos:leer': 'global',
  'productos:escribir': 'global',
  'productos:eliminar': 'global',
  // A warehouse record is visible to whoever may read through it.
  'bodegas:leer': 'bodega',
  'bodegas:escribir': 'global',
  'bodegas:eliminar': 'global',
  // Stock levels, movements and operations.
  'existencias:leer': 'bodega',
  // ENTRADA and SALIDA.
  'existencias:mover': 'bodega',
  'existencias:transferir': 'bodega',
  // AJUSTE/CONTEO and setting a level.
  'existencias:ajustar': 'bodega',
  'operaciones:revertir': 'bodega',
  'umbrales:configurar': 'bodega',
  'usuarios:leer': 'global',
  'usuarios:administrar': 'global',
  // Create, list and revoke one's own API tokens (never worth more than oneself).
  'tokens:propios': 'global',
  'auditoria:leer': 'global',
  'consistencia:verificar': 'global',
} as const satisfies Record<string, Alcance>;

export type Permiso = keyof typeof CATALOGO;

export const PERMISOS = Object.keys(CATALOGO) as Permiso[];

export function esPermiso(value: string): value is Permiso {
  return Object.prototype.hasOwnProperty.call(CATALOGO, value);
}

export function alcanceDe(permiso: Permiso): Alcance {
  return CATALOGO[permiso];
}

const LECTURA: readonly Permiso[] = ['productos:leer', 'bodegas:leer', 'existencias:leer', 'tokens:propios'];
const OPERACION: readonly Permiso[] = [...LECTURA, 'existencias:mover', 'existencias:transferir'];
const SUPERVISION: readonly Permiso[] = [
  ...OPERACION,
  'existencias:ajustar',
  'operaciones:revertir',
  'umbrales:configurar',
];

/**
 * The built-in roles. Each wider role contains the narrower one, except
 * AUDITOR, who reads everything a LECTOR reads plus the audit and the
 * consistency checks, and moves nothing. Every role may make tokens of its
 * own (`tokens:propios`): a token never carries more than its owner.
 */
export const ROLES = {
  LECTOR: LECTURA,
  OPERADOR: OPERACION,
  SUPERVISOR: SUPERVISION,
  AUDITOR: [...LECTURA, 'auditoria:leer', 'consistencia:verificar'],
  ADMIN: PERMISOS,
} as const satisfies Record<string, readonly Permiso[]>;

export type Rol = keyof typeof ROLES;

export const NOMBRES_ROL = Object.keys(ROLES) as Rol[];

export function esRol(value: string): value is Rol {
  return Object.prototype.hasOwnProperty.call(ROLES, value);
}

/** A role binding: the role on one warehouse, or everywhere when `bodegaId` is null. */
export interface Asignacion {
  rol: Rol;
  bodegaId: number | null;
}
