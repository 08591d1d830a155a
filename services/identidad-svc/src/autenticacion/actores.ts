import type { Metadata } from '@grpc/grpc-js';
import {
  decidir,
  PRINCIPAL_METADATA_KEY,
  PrincipalInvalidoError,
  type Permiso,
  type Principal,
  type Verificador,
} from '@inventario/contract';
import { PermissionDeniedError, UnauthenticatedError, type CallContext, type Logger } from '@inventario/platform';
import type { Autor } from '../events/identidad-events';
import type { TokenStore } from '../store/token-store';
import type { UsuarioStore } from '../store/usuario-store';
import { permisosDeToken } from './autenticador';

/**
 * Who calls identidad-svc (docs/contract.md §12.1): the signed principal in
 * `x-inventario-principal`, checked offline, then looked up again. The
 * signature says who; what that principal may do is read now from the
 * database (bindings, its token's scope), and a changed credential version,
 * a suspension, a revoked or expired token void it at once, not when the
 * signed copy expires.
 */
export interface Actor {
  principal: Principal;
  autor: Autor;
}

export interface Actores {
  /** The verified, current caller of a call; UnauthenticatedError otherwise. */
  de(caller: CallContext): Promise<Actor>;
  /** The idempotency scope of a call: its principal's id (verified, not yet looked up). */
  alcanceDeClaves(metadata: Metadata): string;
}

/** Throws PermissionDeniedError (403 FORBIDDEN, naming the permission) unless the actor may. */
export function exigir(actor: Actor, permiso: Permiso, bodegas: readonly number[] = []): void {
  const decision = decidir(actor.principal.permisos, permiso, bodegas);
  if (!decision.permitido) {
    throw new PermissionDeniedError(
      `falta el permiso ${decision.permiso}${
        decision.bodegaId !== undefined ? ` en la ` + `bodega ${decision.bodegaId}` : ''
      }`,
      {
        permiso: decision.permiso,
        ...(decision.bodegaId !== undefined ? { bodegaId: decision.bodegaId } : {}),
      },
    );
  }
}

export function createActores(deps: {
  verificador: Verificador;
  usuarios: UsuarioStore;
  tokens: TokenStore;
  logger: Logger;
}): Actores {
  function verificado(metadata: Metadata | undefined): Principal {
    const raw = metadata?.get(PRINCIPAL_METADATA_KEY)[0];
    if (typeof raw !== 'string' || raw === '')
      throw new UnauthenticatedError('falta el principal firmado (x-inventario-principal)');
    try {
      return deps.verificador.verificar(raw);
    } catch (err) {
      if (!(err instanceof PrincipalInvalidoError)) throw err;
      // Why is for the log; the caller learns only that it was refused.
      deps.logger.info({ reason: err.message }, 'signed principal refused');
      throw new UnauthenticatedError('el principal firmado no es válido');
    }
  }

  return {
    async de(caller) {
      const firmado = verificado(caller.metadata);
      const usuario = await deps.usuarios.obtenerConHash(firmado.id).catch(() => undefined);
      if (!usuario || usuario.estado !== 'ACTIVO' || usuario.credencialVersion !== firmado.credencialVersion) {
        throw new UnauthenticatedError('la credencial cambió; autentíquese de nuevo');
      }
      let permisos = permisosDeToken(null, usuario);
      if (firmado.tokenId !== null) {
        const found = await deps.tokens.paraAutenticar(firmado.tokenId);
        const token = found?.token;
        if (
          !token ||
          token.usuarioId !== usuario.id ||
          token.revocadoEn !== null ||
          token.expiraEn.getTime() <= Date.now()
        ) {
          throw new UnauthenticatedError('el token fue revocado o expiró');
        }
        permisos = permisosDeToken(token.alcance, usuario);
      }
      const principal: Principal = { ...firmado, usuario: usuario.usuario, permisos };
      return {
        principal,
        autor: {
          principalId: principal.id,
          usuario: principal.usuario,
          metodoAuth: principal.metodoAuth,
          tokenId: principal.tokenId,
        },
      };
    },
    alcanceDeClaves: (metadata) => `principal:${verificado(metadata).id}`,
  };
}
