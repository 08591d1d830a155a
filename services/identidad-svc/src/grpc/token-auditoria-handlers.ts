import type { Metadata } from '@grpc/grpc-js';
import { cubre, decidir, interseccion, permisosDe } from '@inventario/contract';
import {
  decodePageToken,
  idempotentBy,
  InvalidArgumentError,
  itemSizeBound,
  listPageOf,
  NotFoundError,
  pageSizeOf,
  requirePositiveId,
  unary,
  type Logger,
} from '@inventario/platform';
import { CreateTokenRequest, RevokeTokenRequest, type IdentidadServiceServer } from '@inventario/proto';
import { exigir, type Actores } from '../autenticacion/actores';
import { expiracion, validarAlcance, validarNombreToken } from '../domain/token';
import type { AuditoriaStore } from '../store/auditoria-store';
import type { TokenStore } from '../store/token-store';
import type { UsuarioStore } from '../store/usuario-store';
import { permisosDeProto, registroAProto, tokenAProto } from './identidad-mapping';

export interface TokenAuditoriaHandlersDeps {
  usuarios: UsuarioStore;
  tokens: TokenStore;
  auditoria: AuditoriaStore;
  actores: Actores;
  /**
   * The last anchor published (inventario.auditoria.ancla), read from the stream; undefined when none or NATS is away.
   */
  ultimaAncla(): Promise<{ seq: number; hash: string } | undefined>;
  tokenTtl: { defaultDays: number; maxDays: number };
  logger: Logger;
}

/**
 * API tokens and the audit trail (docs/contract.md §12.1).
 * One handler per RPC of the generated server interface: its length is the service's list of calls.
 */
export function createTokenAuditoriaHandlers(
  deps: TokenAuditoriaHandlersDeps,
): Pick<IdentidadServiceServer, 'createToken' | 'listTokens' | 'revokeToken' | 'listAuditoria' | 'verificarAuditoria'> {
  const { usuarios, tokens, actores, logger } = deps;
  const porPrincipal = (metadata: Metadata) => actores.alcanceDeClaves(metadata);

  return {
    createToken: unary(
      logger,
      'CreateToken',
      async (request, caller) => {
        const actor = await actores.de(caller);
        const propio = request.usuarioId === 0 || request.usuarioId === actor.principal.id;
        if (propio) exigir(actor, 'tokens:propios');
        else exigir(actor, 'usuarios:administrar');
        const dueno = propio
          ? await usuarios.obtener(actor.principal.id)
          : await usuarios.obtener(requirePositiveId(request.usuarioId, 'usuarioId'));
        // Tokens for someone else only for service accounts: an administrator never mints a person's credential.
        if (!propio && dueno.tipo !== 'SERVICIO')
          throw InvalidArgumentError.field('usuarioId', 'solo las cuentas de servicio reciben tokens de otro usuario');
        if (dueno.estado !== 'ACTIVO') throw InvalidArgumentError.field('usuarioId', 'el usuario está suspendido');
        const nombre = validarNombreToken(request.nombre);
        const expiraEn = expiracion(request.expiraEn, new Date(), deps.tokenTtl);
        const delDueno = permisosDe(dueno.asignaciones);
        let alcance = validarAlcance(permisosDeProto(request.permisos), delDueno, actor.principal.permisos);
        // Without a scope the token follows its owner; but a caller narrower than the owner (itself through a
        // narrow token) fixes the scope at what it holds, or the new token would be worth more than its maker.
        if (alcance === null && !cubre(actor.principal.permisos, delDueno).permitido)
          alcance = interseccion(actor.principal.permisos, delDueno);
        const creado = await tokens.crear(
          { usuarioId: dueno.id, nombre, expiraEn, alcance },
          { caller, autor: actor.autor },
        );
        return { token: tokenAProto(creado.token), secreto: creado.secreto };
      },
      idempotentBy(CreateTokenRequest, undefined, porPrincipal),
    ),

    listTokens: unary(logger, 'ListTokens', async (request, caller) => {
      const actor = await actores.de(caller);
      const propio = request.usuarioId === 0 || request.usuarioId === actor.principal.id;
      exigir(actor, propio ? 'tokens:propios' : 'usuarios:leer');
      const usuarioId = propio ? actor.principal.id : requirePositiveId(request.usuarioId, 'usuarioId');
      const page = await tokens.listar(usuarioId, decodePageToken(request.pageToken), pageSizeOf(request.pageSize));
      const { items, nextPageToken } = listPageOf(
        page.tokens,
        page.hasMore,
        (t) => t.id,
        (t) => itemSizeBound(t.nombre) + 64 * (t.alcance?.length ?? 0),
      );
      return { tokens: items.map(tokenAProto), nextPageToken };
    }),

    revokeToken: unary(
      logger,
      'RevokeToken',
      async (request, caller) => {
        const actor = await actores.de(caller);
        const id = requirePositiveId(request.id, 'id');
        const admin = decidir(actor.principal.permisos, 'usuarios:administrar').permitido;
        if (!admin) exigir(actor, 'tokens:propios');
        const token = await tokens.revocar(id, { caller, autor: actor.autor }, (t) => {
          // Someone else's token does not exist for a caller who may not administer users.
          if (t.usuarioId !== actor.principal.id && !admin) throw new NotFoundError(`No existe el token con id ${id}`);
        });
        return { token: tokenAProto(token) };
      },
      idempotentBy(RevokeTokenRequest, undefined, porPrincipal),
    ),

    listAuditoria: unary(logger, 'ListAuditoria', async (request, caller) => {
      exigir(await actores.de(caller), 'auditoria:leer');
      const pageSize = pageSizeOf(request.pageSize);
      if (request.desde && request.hasta && request.desde.getTime() >= request.hasta.getTime()) {
        throw InvalidArgumentError.field('hasta', 'debe ser posterior a desde');
      }
      const page = await deps.auditoria.listar({
        ...(request.principalId !== undefined ? { principalId: request.principalId } : {}),
        ...(request.accion ? { accion: request.accion } : {}),
        ...(request.desde ? { desde: request.desde } : {}),
        ...(request.hasta ? { hasta: request.hasta } : {}),
        antesDe: decodePageToken(request.pageToken),
        pageSize,
      });
      const { items, nextPageToken } = listPageOf(
        page.registros,
        page.hasMore,
        (r) => r.seq,
        (r) => itemSizeBound(r.datos, r.usuario, r.recurso, r.eventoId) + 256,
      );
      return { registros: items.map(registroAProto), nextPageToken };
    }),

    verificarAuditoria: unary(logger, 'VerificarAuditoria', async (_request, caller) => {
      exigir(await actores.de(caller), 'consistencia:verificar');
      const ancla = await deps.ultimaAncla().catch(() => undefined);
      const v = await deps.auditoria.verificar(ancla);
      if (!v.consistente) logger.error({ rotura: v.rotura, ancla }, 'the audit chain does not verify');
      return {
        consistente: v.consistente,
        filas: v.filas,
        primeraRota: v.rotura?.seq,
        motivo: v.rotura?.motivo ?? (ancla ? '' : 'no hay ancla publicada con la que comparar la cola'),
        anclaSeq: ancla?.seq,
        anclaHash: ancla?.hash ?? '',
      };
    }),
  };
}
