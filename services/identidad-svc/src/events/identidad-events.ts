import { randomUUID } from 'node:crypto';
import { type Asignacion, type MetodoAuth, type PermisoEfectivo } from '@inventario/contract';
import { eventAudit, eventTraceHeaders, formatLocalUtc, type Operacion, type OutboxEvent } from '@inventario/platform';
import type { Token } from '../domain/token';
import type { Usuario } from '../domain/usuario';

/**
 * identidad-svc's events (docs/contract.md §12.4), built as outbox rows in
 * the write's own transaction, in the envelope of §5.2. They carry who did
 * it and what the record became, never a password, hash or secret: a
 * password change shows only as `camposModificados: ["password"]` and a new
 * `credencialVersion`.
 *
 * These types stay out of platform's EVENT_TYPES on purpose: that list is
 * what the notifier must e-mail or silence, and it subscribes to none of these.
 */

export const TIPOS_EVENTO_IDENTIDAD = {
  UsuarioCreado: 'identidad.usuario.creado',
  UsuarioActualizado: 'identidad.usuario.actualizado',
  UsuarioEliminado: 'identidad.usuario.eliminado',
  TokenCreado: 'identidad.token.creado',
  TokenRevocado: 'identidad.token.revocado',
  AuditoriaAnclada: 'auditoria.ancla',
} as const;

export type TipoEventoIdentidad = keyof typeof TIPOS_EVENTO_IDENTIDAD;
export const SOURCE = 'identidad-svc';

/** Who made a change: a verified principal, or `system` (the bootstrap, the anchor). */
export interface Autor {
  principalId: number | null;
  usuario: string;
  metodoAuth: MetodoAuth;
  tokenId: number | null;
}

export const SISTEMA: Autor = { principalId: null, usuario: 'system', metodoAuth: 'system', tokenId: null };

export interface WriteContext {
  autor: Autor;
  traceparent?: string;
  tracestate?: string;
  /** One instant for the record's dates, `eventTime` and `data.timestamp`. */
  at: Date;
}

export type CampoUsuario = 'nombre' | 'estado' | 'password' | 'asignaciones';

export interface UsuarioEventData {
  usuarioId: number;
  /** The user's name (`usuario` is the author, as in every event's audit block). */
  nombre: string;
  tipo: Usuario['tipo'];
  estado: Usuario['estado'];
  asignaciones: Asignacion[];
  credencialVersion: number;
  version: number;
  camposModificados?: CampoUsuario[];
}

export interface TokenEventData {
  tokenId: number;
  usuarioId: number;
  nombre: string;
  expiraEn: string;
  alcanceCompleto: boolean;
  permisos: PermisoEfectivo[];
  revocadoEn: string | null;
}

export interface IdentidadEvents {
  usuario(
    type: 'UsuarioCreado' | 'UsuarioActualizado' | 'UsuarioEliminado',
    usuario: Usuario,
    ctx: WriteContext,
    campos?: CampoUsuario[],
  ): OutboxEvent;
  token(type: 'TokenCreado' | 'TokenRevocado', token: Token, ctx: WriteContext): OutboxEvent;
  ancla(cabeza: { seq: number; hash: string }, at: Date): OutboxEvent;
}

export function createIdentidadEvents(options: { namespace: string; subjectPrefix: string }): IdentidadEvents {
  function event(
    type: TipoEventoIdentidad,
    subject: string,
    ctx: Omit<WriteContext, 'autor'> & { autor?: Autor },
    operacion: Operacion,
    data: object,
  ): OutboxEvent {
    const autor = ctx.autor ?? SISTEMA;
    // A token event's own `tokenId` is the record's (§12.4's table); the author's token then goes as
    // `autorTokenId`, or one would overwrite the other (docs/contract.md, "Who made a token event").
    const autorToken = 'tokenId' in data ? 'autorTokenId' : 'tokenId';
    const envelope = {
      id: randomUUID(),
      eventType: `${options.namespace}.Inventario.${type}`,
      subject,
      eventTime: formatLocalUtc(ctx.at),
      dataVersion: '1.0',
      source: SOURCE,
      // The audit block of §5.3, plus who exactly (additive): the principal's id and how it authenticated.
      data: {
        ...data,
        ...eventAudit(operacion, autor.usuario, ctx.at),
        principalId: autor.principalId,
        metodoAuth: autor.metodoAuth,
        ...(autor.tokenId !== null ? { [autorToken]: autor.tokenId } : {}),
      },
    };
    // The outbox stores any envelope of §5.2; platform's type lists only the inventory's own data forms.
    return {
      subject: `${options.subjectPrefix}.${TIPOS_EVENTO_IDENTIDAD[type]}`,
      envelope: envelope as unknown as OutboxEvent['envelope'],
      headers: eventTraceHeaders(ctx),
    };
  }

  return {
    usuario(type, usuario, ctx, campos) {
      const data: UsuarioEventData = {
        usuarioId: usuario.id,
        nombre: usuario.usuario,
        tipo: usuario.tipo,
        estado: usuario.estado,
        asignaciones: usuario.asignaciones,
        credencialVersion: usuario.credencialVersion,
        version: usuario.version,
        ...(type === 'UsuarioActualizado' ? { camposModificados: campos ?? [] } : {}),
      };
      const operacion = type === 'UsuarioCreado' ? 'CREATE' : type === 'UsuarioEliminado' ? 'DELETE' : 'UPDATE';
      return event(type, `/usuarios/${usuario.id}`, ctx, operacion, data);
    },
    token(type, token, ctx) {
      const data: TokenEventData = {
        tokenId: token.id,
        usuarioId: token.usuarioId,
        nombre: token.nombre,
        expiraEn: formatLocalUtc(token.expiraEn),
        alcanceCompleto: token.alcance === null,
        permisos: token.alcance ?? [],
        revocadoEn: token.revocadoEn ? formatLocalUtc(token.revocadoEn) : null,
      };
      return event(type, `/tokens/${token.id}`, ctx, type === 'TokenCreado' ? 'CREATE' : 'DELETE', data);
    },
    ancla(cabeza, at) {
      return event('AuditoriaAnclada', `/auditoria/${cabeza.seq}`, { at }, 'CREATE', {
        seq: cabeza.seq,
        hash: cabeza.hash,
      });
    },
  };
}
