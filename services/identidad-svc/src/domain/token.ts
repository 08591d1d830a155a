import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { cubre, deLista, type PermisoEfectivo, type Permisos } from '@inventario/contract';
import { InvalidArgumentError, PermissionDeniedError } from '@inventario/platform';

/**
 * API tokens (docs/decisions.md, "API tokens"): `inv_<id>_<secret>`, the
 * id in decimal so the row is found by primary key, the secret 32 random
 * bytes in base64url. Only the secret's SHA-256 is stored: 256 random bits
 * need no slow KDF (that is for guessable passwords), and no stored value
 * lets anyone authenticate.
 */

export interface Token {
  id: number;
  usuarioId: number;
  nombre: string;
  expiraEn: Date;
  /** null: no scope asked, worth whatever the owner may do at each use. */
  alcance: PermisoEfectivo[] | null;
  fechaCreacion: Date;
  revocadoEn: Date | null;
  ultimoUso: Date | null;
}

export const PREFIJO = 'inv_';
const SECRET_BYTES = 32;
const FORMA = /^inv_([1-9][0-9]{0,9})_([A-Za-z0-9_-]{43})$/;
export const MAX_NOMBRE_TOKEN = 100;

export function nuevoSecreto(): string {
  return randomBytes(SECRET_BYTES).toString('base64url');
}

export function textoDeToken(id: number, secreto: string): string {
  return `${PREFIJO}${id}_${secreto}`;
}

/** The id and secret of a bearer token, or undefined for anything not of our form. */
export function leerToken(texto: string): { id: number; secreto: string } | undefined {
  const match = FORMA.exec(texto);
  if (!match) return undefined;
  return { id: Number(match[1]), secreto: match[2]! };
}

export function hashDeSecreto(secreto: string): Buffer {
  return createHash('sha256').update(secreto, 'utf8').digest();
}

/** Compared in constant time; a missing row compares against a hash nothing matches, so both paths cost alike. */
export function secretoCoincide(secreto: string, guardado: Buffer | undefined): boolean {
  const esperado = guardado ?? SIN_TOKEN;
  return timingSafeEqual(hashDeSecreto(secreto), esperado) && guardado !== undefined;
}

const SIN_TOKEN = Buffer.alloc(32);

export function validarNombreToken(nombre: string): string {
  const n = nombre.normalize('NFC').trim();
  if (n === '' || [...n].length > MAX_NOMBRE_TOKEN)
    throw InvalidArgumentError.field('nombre', `debe tener de 1 a ${MAX_NOMBRE_TOKEN} caracteres`);
  return n;
}

/** The expiry: asked or the default, never past the cap, never in the past. */
export function expiracion(
  pedida: Date | undefined,
  now: Date,
  opciones: { defaultDays: number; maxDays: number },
): Date {
  const max = new Date(now.getTime() + opciones.maxDays * 86_400_000);
  if (pedida === undefined) return new Date(now.getTime() + opciones.defaultDays * 86_400_000);
  if (pedida.getTime() <= now.getTime()) throw InvalidArgumentError.field('expiraEn', 'debe ser una fecha futura');
  if (pedida.getTime() > max.getTime())
    throw InvalidArgumentError.field('expiraEn', `no puede pasar de ${opciones.maxDays} días`);
  return pedida;
}

/**
 * A token's scope must lie within its owner's rights and within the
 * creator's (who may be an administrator making one for a service
 * account): a token is never a way to hand out more than one holds.
 */
export function validarAlcance(
  pedido: readonly PermisoEfectivo[],
  dueno: Permisos,
  creador: Permisos,
): Permisos | null {
  if (pedido.length === 0) return null;
  const alcance = deLista(pedido);
  if (alcance.size === 0)
    throw InvalidArgumentError.field('permisos', 'no concede nada: indique permisos de su alcance');
  for (const quien of [dueno, creador]) {
    const decision = cubre(quien, alcance);
    if (!decision.permitido) {
      throw new PermissionDeniedError(`el alcance pedido incluye ${decision.permiso} más allá de lo permitido`, {
        permiso: decision.permiso,
        ...(decision.bodegaId !== undefined ? { bodegaId: decision.bodegaId } : {}),
      });
    }
  }
  return alcance;
}
