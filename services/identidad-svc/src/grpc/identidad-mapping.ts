import {
  aLista,
  esPermiso,
  type Asignacion,
  type PermisoEfectivo,
  type Permisos,
  type Principal,
} from '@inventario/contract';
import { InvalidArgumentError } from '@inventario/platform';
import {
  EstadoUsuario,
  MetodoAuth,
  TipoUsuario,
  type Asignacion as AsignacionProto,
  type PermisoEfectivo as PermisoEfectivoProto,
  type Principal as PrincipalProto,
  type RegistroAuditoria,
  type Token as TokenProto,
  type Usuario as UsuarioProto,
} from '@inventario/proto';
import type { Registro } from '../domain/auditoria';
import type { Token } from '../domain/token';
import type { EstadoUsuario as Estado, Usuario } from '../domain/usuario';

/** Domain ↔ inventario.v1 messages, at the gRPC edge only. */

const TIPO = { HUMANO: TipoUsuario.TIPO_USUARIO_HUMANO, SERVICIO: TipoUsuario.TIPO_USUARIO_SERVICIO } as const;
const ESTADO = {
  ACTIVO: EstadoUsuario.ESTADO_USUARIO_ACTIVO,
  SUSPENDIDO: EstadoUsuario.ESTADO_USUARIO_SUSPENDIDO,
} as const;
const METODO = {
  password: MetodoAuth.METODO_AUTH_PASSWORD,
  token: MetodoAuth.METODO_AUTH_TOKEN,
  system: MetodoAuth.METODO_AUTH_SYSTEM,
} as const;

export function asignacionesAProto(asignaciones: readonly Asignacion[]): AsignacionProto[] {
  return asignaciones.map((a) => ({ rol: a.rol, bodegaId: a.bodegaId ?? undefined }));
}

export function permisosAProto(permisos: Permisos): PermisoEfectivoProto[] {
  return aLista(permisos);
}

export function usuarioAProto(u: Usuario): UsuarioProto {
  return {
    id: u.id,
    usuario: u.usuario,
    tipo: TIPO[u.tipo],
    estado: ESTADO[u.estado],
    asignaciones: asignacionesAProto(u.asignaciones),
    credencialVersion: u.credencialVersion,
    version: u.version,
    fechaCreacion: u.fechaCreacion,
    fechaActualizacion: u.fechaActualizacion,
    tienePassword: u.tienePassword,
  };
}

export function principalAProto(p: Principal): PrincipalProto {
  return {
    id: p.id,
    usuario: p.usuario,
    tipo: TIPO[p.tipo],
    metodoAuth: METODO[p.metodoAuth],
    tokenId: p.tokenId ?? undefined,
    credencialVersion: p.credencialVersion,
  };
}

export function tokenAProto(t: Token): TokenProto {
  return {
    id: t.id,
    usuarioId: t.usuarioId,
    nombre: t.nombre,
    expiraEn: t.expiraEn,
    permisos: t.alcance ?? [],
    alcanceCompleto: t.alcance === null,
    fechaCreacion: t.fechaCreacion,
    revocadoEn: t.revocadoEn ?? undefined,
    ultimoUso: t.ultimoUso ?? undefined,
  };
}

export function registroAProto(r: Registro): RegistroAuditoria {
  return {
    seq: r.seq,
    eventoId: r.eventoId,
    accion: r.accion,
    recurso: r.recurso,
    principalId: r.principalId ?? undefined,
    usuario: r.usuario,
    metodoAuth: r.metodoAuth,
    tokenId: r.tokenId ?? undefined,
    requestId: r.requestId,
    direccion: r.direccion,
    datosJson: r.datos,
    ocurridoEn: r.ocurridoEn,
    hash: r.hash.toString('hex'),
    hashAnterior: r.hashAnterior.toString('hex'),
  };
}

/** Unspecified means HUMANO (the default of CreateUsuario). */
export function tipoDeProto(tipo: TipoUsuario): 'HUMANO' | 'SERVICIO' {
  if (tipo === TipoUsuario.TIPO_USUARIO_SERVICIO) return 'SERVICIO';
  if (tipo === TipoUsuario.TIPO_USUARIO_HUMANO || tipo === TipoUsuario.TIPO_USUARIO_UNSPECIFIED) return 'HUMANO';
  throw InvalidArgumentError.field('tipo', 'debe ser HUMANO o SERVICIO');
}

/** undefined for unspecified (no change). */
export function estadoDeProto(estado: EstadoUsuario): Estado | undefined {
  if (estado === EstadoUsuario.ESTADO_USUARIO_UNSPECIFIED) return undefined;
  if (estado === EstadoUsuario.ESTADO_USUARIO_ACTIVO) return 'ACTIVO';
  if (estado === EstadoUsuario.ESTADO_USUARIO_SUSPENDIDO) return 'SUSPENDIDO';
  throw InvalidArgumentError.field('estado', 'debe ser ACTIVO o SUSPENDIDO');
}

/** A requested token scope: every permission must be of the catalogue. */
export function permisosDeProto(lista: readonly PermisoEfectivoProto[]): PermisoEfectivo[] {
  return lista.map((p, i) => {
    if (!esPermiso(p.permiso))
      throw InvalidArgumentError.field(`permisos[${i}].permiso`, 'no es un permiso del catálogo');
    return { permiso: p.permiso, todasLasBodegas: p.todasLasBodegas, bodegaIds: p.bodegaIds };
  });
}
