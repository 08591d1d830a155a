import { esRol, NOMBRES_ROL, type Asignacion, type TipoUsuario } from '@inventario/contract';
import { InvalidArgumentError, MAX_UNSIGNED_INT, type FieldViolation } from '@inventario/platform';

/**
 * User rules, free of I/O (docs/contract.md §12.3). Violations name the
 * public field and carry a Spanish message; a password never appears in one.
 */

export type EstadoUsuario = 'ACTIVO' | 'SUSPENDIDO';

export interface Usuario {
  id: number;
  /** As given, NFC-normalised. */
  usuario: string;
  tipo: TipoUsuario;
  estado: EstadoUsuario;
  asignaciones: Asignacion[];
  credencialVersion: number;
  version: number;
  fechaCreacion: Date;
  fechaActualizacion: Date;
  tienePassword: boolean;
}

export const MAX_USUARIO = 100;
export const MIN_PASSWORD = 12;
/** Bytes: argon2 costs the same for any length, but a request must stay small. */
export const MAX_PASSWORD_BYTES = 1024;
/** Internal work (the reconciliation consumers, the seed) acts under these names: no person may take one. */
export const NOMBRES_RESERVADOS = ['system', 'seed'] as const;

export const USUARIO_MENSAJES = {
  obligatorio: 'es obligatorio',
  largo: `debe tener de 1 a ${MAX_USUARIO} caracteres`,
  caracteres: 'no admite ":", caracteres de control ni espacios al principio o al final',
  reservado: 'es un nombre reservado del sistema',
  passwordCorta: `debe tener al menos ${MIN_PASSWORD} caracteres`,
  passwordLarga: `admite como máximo ${MAX_PASSWORD_BYTES} bytes`,
  passwordServicio: 'una cuenta de servicio no tiene contraseña: use tokens',
  rol: `debe ser uno de ${NOMBRES_ROL.join(', ')}`,
  bodegaId: 'debe ser un id de bodega (entero positivo)',
} as const;

/**
 * The key names are compared by: NFC, then case-folded (upper then lower
 * case, so "ß" and "SS" meet), NFC again. Stored in a binary-collated
 * unique column, so the database enforces exactly this rule and no
 * collation of its own.
 */
export function claveDeUsuario(usuario: string): string {
  return usuario.normalize('NFC').toUpperCase().toLowerCase().normalize('NFC');
}

/**
 * A user name as stored: NFC; refused when blank, too long, reserved, or holding ":" (Basic's separator) or controls.
 */
export function validarNombreUsuario(value: string | undefined, campo = 'usuario'): string {
  if (value === undefined || value === '') throw InvalidArgumentError.field(campo, USUARIO_MENSAJES.obligatorio);
  const usuario = value.normalize('NFC');
  const length = [...usuario].length;
  if (length > MAX_USUARIO) throw InvalidArgumentError.field(campo, USUARIO_MENSAJES.largo);
  // eslint-disable-next-line no-control-regex
  if (usuario.includes(':') || /[\u0000-\u001f\u007f-\u009f]/.test(usuario) || usuario.trim() !== usuario) {
    throw InvalidArgumentError.field(campo, USUARIO_MENSAJES.caracteres);
  }
  if ((NOMBRES_RESERVADOS as readonly string[]).includes(claveDeUsuario(usuario)))
    throw InvalidArgumentError.field(campo, USUARIO_MENSAJES.reservado);
  return usuario;
}

/** A new password set through the API (the bootstrap password is the operator's and is taken as configured). */
export function validarPassword(password: string, campo = 'password'): string {
  if ([...password].length < MIN_PASSWORD) throw InvalidArgumentError.field(campo, USUARIO_MENSAJES.passwordCorta);
  if (Buffer.byteLength(password, 'utf8') > MAX_PASSWORD_BYTES)
    throw InvalidArgumentError.field(campo, USUARIO_MENSAJES.passwordLarga);
  return password;
}

/** A binding set: known roles, positive warehouse ids; duplicates count once, in a stable order. */
export function validarAsignaciones(
  raw: readonly { rol: string; bodegaId?: number | undefined }[],
  campo = 'asignaciones',
): Asignacion[] {
  const violations: FieldViolation[] = [];
  const out = new Map<string, Asignacion>();
  raw.forEach(({ rol, bodegaId }, i) => {
    if (!esRol(rol)) violations.push({ campo: `${campo}[${i}].rol`, mensaje: USUARIO_MENSAJES.rol });
    else if (bodegaId !== undefined && (!Number.isInteger(bodegaId) || bodegaId < 1 || bodegaId > MAX_UNSIGNED_INT)) {
      violations.push({ campo: `${campo}[${i}].bodegaId`, mensaje: USUARIO_MENSAJES.bodegaId });
    } else out.set(`${rol}@${bodegaId ?? '*'}`, { rol, bodegaId: bodegaId ?? null });
  });
  if (violations.length > 0) throw new InvalidArgumentError(violations);
  return ordenar([...out.values()]);
}

export function ordenar(asignaciones: Asignacion[]): Asignacion[] {
  return asignaciones.sort((a, b) => a.rol.localeCompare(b.rol) || (a.bodegaId ?? 0) - (b.bodegaId ?? 0));
}

/** An active user holding ADMIN on every warehouse: the one the system must never lose the last of. */
export function esAdminActivo(usuario: Pick<Usuario, 'estado' | 'asignaciones'>): boolean {
  return usuario.estado === 'ACTIVO' && usuario.asignaciones.some((a) => a.rol === 'ADMIN' && a.bodegaId === null);
}
