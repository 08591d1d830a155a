import { esPermiso, esRol, type PermisoEfectivo } from '@inventario/contract';
import { formatLocalUtc, InvalidArgumentError, type FieldViolation } from '@inventario/platform';
import { isLosslessNumber } from 'lossless-json';
import {
  EstadoUsuario,
  TipoUsuario,
  type Asignacion as AsignacionProto,
  type PermisoEfectivo as PermisoProto,
  type RegistroAuditoria,
  type Token,
  type Usuario,
} from '@inventario/proto';

/**
 * The REST bodies of the identity routes (docs/contract.md §12.8) and the parsing of theirs; no secret ever goes out
 * but a new token's, once.
 */

const TIPO_JSON = {
  [TipoUsuario.TIPO_USUARIO_HUMANO]: 'HUMANO',
  [TipoUsuario.TIPO_USUARIO_SERVICIO]: 'SERVICIO',
} as Record<number, string>;
const ESTADO_JSON = {
  [EstadoUsuario.ESTADO_USUARIO_ACTIVO]: 'ACTIVO',
  [EstadoUsuario.ESTADO_USUARIO_SUSPENDIDO]: 'SUSPENDIDO',
} as Record<number, string>;
const fecha = (d: Date | undefined) => (d ? formatLocalUtc(d) : null);

export const asignacionJson = (a: AsignacionProto) => ({ rol: a.rol, bodegaId: a.bodegaId ?? null });
export const permisoJson = (p: PermisoProto) => ({
  permiso: p.permiso,
  todasLasBodegas: p.todasLasBodegas,
  bodegaIds: p.bodegaIds,
});

export function usuarioJson(u: Usuario) {
  return {
    id: u.id,
    usuario: u.usuario,
    tipo: TIPO_JSON[u.tipo] ?? 'HUMANO',
    estado: ESTADO_JSON[u.estado] ?? 'ACTIVO',
    asignaciones: u.asignaciones.map(asignacionJson),
    tienePassword: u.tienePassword,
    version: u.version,
    fechaCreacion: fecha(u.fechaCreacion),
    fechaActualizacion: fecha(u.fechaActualizacion),
  };
}

export function tokenJson(t: Token) {
  return {
    id: t.id,
    usuarioId: t.usuarioId,
    nombre: t.nombre,
    expiraEn: fecha(t.expiraEn),
    // null: created without a scope, worth whatever its owner may do at each use.
    permisos: t.alcanceCompleto ? null : t.permisos.map(permisoJson),
    fechaCreacion: fecha(t.fechaCreacion),
    revocadoEn: fecha(t.revocadoEn),
    ultimoUso: fecha(t.ultimoUso),
  };
}

export function registroJson(r: RegistroAuditoria) {
  let datos: unknown;
  try {
    datos = JSON.parse(r.datosJson) as unknown;
  } catch {
    datos = r.datosJson;
  }
  return {
    seq: r.seq,
    eventoId: r.eventoId,
    accion: r.accion,
    recurso: r.recurso,
    principalId: r.principalId ?? null,
    usuario: r.usuario,
    metodoAuth: r.metodoAuth,
    tokenId: r.tokenId ?? null,
    requestId: r.requestId,
    direccion: r.direccion,
    datos,
    ocurridoEn: fecha(r.ocurridoEn),
    hash: r.hash,
    hashAnterior: r.hashAnterior,
  };
}

/** Reads a JSON body's fields, collecting every problem into one InvalidArgumentError. */
export class Campos {
  readonly violations: FieldViolation[] = [];
  private readonly body: Record<string, unknown>;

  constructor(body: unknown, allowed: readonly string[]) {
    this.body =
      typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
    if (this.body !== body) this.violations.push({ campo: 'cuerpo', mensaje: 'debe ser un objeto JSON' });
    for (const key of Object.keys(this.body))
      if (!allowed.includes(key)) this.violations.push({ campo: key, mensaje: 'campo desconocido' });
  }

  texto(campo: string, opts: { requerido?: boolean; max?: number } = {}): string | undefined {
    const value = this.body[campo];
    if (value === undefined || value === null) {
      if (opts.requerido) this.violations.push({ campo, mensaje: 'es obligatorio' });
      return undefined;
    }
    if (typeof value !== 'string' || value.length === 0)
      this.violations.push({ campo, mensaje: 'debe ser un texto no vacío' });
    else if (opts.max !== undefined && value.length > opts.max)
      this.violations.push({ campo, mensaje: `debe tener a lo sumo ${opts.max} caracteres` });
    else return value;
    return undefined;
  }

  enumerado<T extends string>(campo: string, valores: readonly T[]): T | undefined {
    const value = this.body[campo];
    if (value === undefined || value === null) return undefined;
    if (typeof value === 'string' && (valores as readonly string[]).includes(value)) return value as T;
    this.violations.push({ campo, mensaje: `debe ser uno de ${valores.join(', ')}` });
    return undefined;
  }

  asignaciones(campo: string, opts: { requerido?: boolean } = {}): AsignacionProto[] | undefined {
    const value = this.body[campo];
    if (value === undefined || value === null) {
      if (opts.requerido) this.violations.push({ campo, mensaje: 'es obligatorio' });
      return undefined;
    }
    if (!Array.isArray(value)) {
      this.violations.push({ campo, mensaje: 'debe ser una lista de {rol, bodegaId?}' });
      return undefined;
    }
    const out: AsignacionProto[] = [];
    value.forEach((item: unknown, i) => {
      const { rol, bodegaId } = (typeof item === 'object' && item !== null ? item : {}) as {
        rol?: unknown;
        bodegaId?: unknown;
      };
      if (typeof rol !== 'string' || !esRol(rol))
        this.violations.push({
          campo: `${campo}[${i}].rol`,
          mensaje: 'debe ser LECTOR, OPERADOR, SUPERVISOR, AUDITOR o ADMIN',
        });
      else if (bodegaId !== undefined && bodegaId !== null && idDe(bodegaId) === undefined)
        this.violations.push({ campo: `${campo}[${i}].bodegaId`, mensaje: 'debe ser un id' });
      else out.push({ rol, bodegaId: idDe(bodegaId) });
    });
    return out;
  }

  /** `[{permiso, bodegaIds?}]`: without bodegaIds, everywhere. */
  permisos(campo: string): PermisoEfectivo[] | undefined {
    const value = this.body[campo];
    if (value === undefined || value === null) return undefined;
    if (!Array.isArray(value)) {
      this.violations.push({ campo, mensaje: 'debe ser una lista de {permiso, bodegaIds?}' });
      return undefined;
    }
    const out: PermisoEfectivo[] = [];
    value.forEach((item: unknown, i) => {
      const { permiso, bodegaIds } = (typeof item === 'object' && item !== null ? item : {}) as {
        permiso?: unknown;
        bodegaIds?: unknown;
      };
      if (typeof permiso !== 'string' || !esPermiso(permiso))
        this.violations.push({ campo: `${campo}[${i}].permiso`, mensaje: 'no es un permiso del catálogo' });
      else if (
        bodegaIds !== undefined &&
        bodegaIds !== null &&
        !(Array.isArray(bodegaIds) && bodegaIds.length > 0 && bodegaIds.every((id) => idDe(id) !== undefined))
      )
        this.violations.push({ campo: `${campo}[${i}].bodegaIds`, mensaje: 'debe ser una lista no vacía de ids' });
      else
        out.push(
          Array.isArray(bodegaIds)
            ? { permiso, todasLasBodegas: false, bodegaIds: bodegaIds.map((id) => idDe(id)!) }
            : { permiso, todasLasBodegas: true, bodegaIds: [] },
        );
    });
    return out;
  }

  fecha(campo: string): Date | undefined {
    const value = this.body[campo];
    if (value === undefined || value === null) return undefined;
    const date =
      typeof value === 'string' ? new Date(/[zZ]|[+-]\d\d:\d\d$/.test(value) ? value : `${value}Z`) : undefined;
    if (!date || Number.isNaN(date.getTime())) {
      this.violations.push({ campo, mensaje: 'debe ser una fecha ISO 8601 (UTC), p. ej. 2026-12-31T00:00:00' });
      return undefined;
    }
    return date;
  }

  /** Throws every problem found at once. */
  fin(): void {
    if (this.violations.length > 0) throw new InvalidArgumentError(this.violations);
  }
}

/** An id as the body parser gives it (lossless-json: a LosslessNumber), or undefined when it is not one. */
function idDe(value: unknown): number | undefined {
  const n = isLosslessNumber(value) ? Number(value.toString()) : value;
  return typeof n === 'number' && Number.isSafeInteger(n) && n > 0 && n <= 0xffffffff ? n : undefined;
}
