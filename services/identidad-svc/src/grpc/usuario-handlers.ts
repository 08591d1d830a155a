import type { Metadata } from '@grpc/grpc-js';
import type { KeyObject } from 'node:crypto';
import { cubre, jwkPublica, permisosDe, puedeConceder, type Asignacion } from '@inventario/contract';
import {
  idempotentBy,
  InvalidArgumentError,
  itemSizeBound,
  listPageOf,
  pageSizeOf,
  decodePageToken,
  PermissionDeniedError,
  requirePositiveId,
  unary,
  type Logger,
} from '@inventario/platform';
import {
  CambiarPasswordRequest,
  CreateUsuarioRequest,
  DeleteUsuarioRequest,
  SetAsignacionesRequest,
  SuspenderUsuarioRequest,
  UpdateUsuarioRequest,
  type IdentidadServiceServer,
} from '@inventario/proto';
import { exigir, type Actor, type Actores } from '../autenticacion/actores';
import type { Autenticador } from '../autenticacion/autenticador';
import type { PasswordHasher } from '../autenticacion/password-hasher';
import {
  USUARIO_MENSAJES,
  validarAsignaciones,
  validarNombreUsuario,
  validarPassword,
  type Usuario,
} from '../domain/usuario';
import type { UsuarioStore } from '../store/usuario-store';
import {
  asignacionesAProto,
  estadoDeProto,
  permisosAProto,
  principalAProto,
  tipoDeProto,
  usuarioAProto,
} from './identidad-mapping';

export interface UsuarioHandlersDeps {
  usuarios: UsuarioStore;
  autenticador: Autenticador;
  actores: Actores;
  hasher: PasswordHasher;
  clavePublica: KeyObject;
  logger: Logger;
}

type UsuarioMethods =
  | 'autenticar'
  | 'getClavesPublicas'
  | 'yo'
  | 'createUsuario'
  | 'getUsuario'
  | 'listUsuarios'
  | 'updateUsuario'
  | 'deleteUsuario'
  | 'cambiarPassword'
  | 'suspenderUsuario'
  | 'setAsignaciones';

/**
 * No escalation on people: an administrator acts on a user only when it
 * holds every right that user holds, so a narrower administrator (should
 * one exist) cannot suspend, rename or reset a wider one.
 */
function exigirCobertura(actor: Actor, objetivo: Pick<Usuario, 'id' | 'asignaciones'>): void {
  const decision = cubre(actor.principal.permisos, permisosDe(objetivo.asignaciones));
  if (!decision.permitido) {
    throw new PermissionDeniedError(
      `el usuario ${objetivo.id} tiene permisos que usted no tiene (${decision.permiso})`,
      { permiso: decision.permiso },
    );
  }
}

function exigirConcesion(actor: Actor, asignaciones: readonly Asignacion[]): void {
  const decision = puedeConceder(actor.principal.permisos, asignaciones);
  if (!decision.permitido) {
    throw new PermissionDeniedError(
      `no puede conceder ${decision.permiso}${
        decision.bodegaId !== undefined ? ` en la ` + `bodega ${decision.bodegaId}` : ''
      }`,
      {
        permiso: decision.permiso,
        ...(decision.bodegaId !== undefined ? { bodegaId: decision.bodegaId } : {}),
      },
    );
  }
}

const clave = (a: Asignacion) => `${a.rol}@${a.bodegaId ?? '*'}`;

/**
 * Users: authentication, the caller, and administration (docs/contract.md §12.1).
 * One handler per RPC of the generated server interface: its length is the service's list of calls.
 */
export function createUsuarioHandlers(deps: UsuarioHandlersDeps): Pick<IdentidadServiceServer, UsuarioMethods> {
  const { usuarios, actores, hasher, logger } = deps;
  const porPrincipal = (metadata: Metadata) => actores.alcanceDeClaves(metadata);

  /** The user an administrator acts on: usuarios:administrar, then the target (404 only once allowed), then cover. */
  async function administrado(actor: Actor, id: number): Promise<Usuario> {
    exigir(actor, 'usuarios:administrar');
    const objetivo = await usuarios.obtener(id);
    exigirCobertura(actor, objetivo);
    return objetivo;
  }

  return {
    autenticar: unary(logger, 'Autenticar', async (request) => {
      const credencial = request.basica
        ? { basica: { usuario: request.basica.usuario, password: request.basica.password } }
        : request.bearer !== undefined
          ? { bearer: request.bearer }
          : undefined;
      if (!credencial) throw InvalidArgumentError.field('credencial', 'indique basica o bearer');
      const ok = await deps.autenticador.autenticar(credencial, request.direccion);
      return {
        principal: principalAProto(ok.principal),
        permisos: permisosAProto(ok.principal.permisos),
        asignaciones: asignacionesAProto(ok.asignaciones),
        principalFirmado: ok.firmado.token,
        principalFirmadoExpiraEn: ok.firmado.expiraEn,
      };
    }),

    getClavesPublicas: unary(logger, 'GetClavesPublicas', () => {
      const jwk = jwkPublica(deps.clavePublica);
      return Promise.resolve({ claves: [{ kid: jwk.kid!, kty: jwk.kty!, crv: jwk.crv!, x: jwk.x!, alg: jwk.alg! }] });
    }),

    yo: unary(logger, 'Yo', async (_request, caller) => {
      const actor = await actores.de(caller);
      return {
        principal: principalAProto(actor.principal),
        usuario: usuarioAProto(await usuarios.obtener(actor.principal.id)),
        permisos: permisosAProto(actor.principal.permisos),
      };
    }),

    createUsuario: unary(
      logger,
      'CreateUsuario',
      async (request, caller) => {
        const actor = await actores.de(caller);
        exigir(actor, 'usuarios:administrar');
        const usuario = validarNombreUsuario(request.usuario);
        const tipo = tipoDeProto(request.tipo);
        const asignaciones = validarAsignaciones(request.asignaciones);
        if (tipo === 'SERVICIO' && request.password !== undefined)
          throw InvalidArgumentError.field('password', USUARIO_MENSAJES.passwordServicio);
        const password = request.password !== undefined ? validarPassword(request.password) : undefined;
        exigirConcesion(actor, asignaciones);
        // Hashed before the transaction (and only once the request is known valid and allowed).
        const passwordHash = password !== undefined ? await hasher.hash(password) : null;
        const creado = await usuarios.crear(
          { usuario, tipo, passwordHash, asignaciones },
          { caller, autor: actor.autor },
        );
        return { usuario: usuarioAProto(creado) };
      },
      idempotentBy(CreateUsuarioRequest, undefined, porPrincipal),
    ),

    getUsuario: unary(logger, 'GetUsuario', async (request, caller) => {
      const actor = await actores.de(caller);
      const id = requirePositiveId(request.id, 'id');
      // Checked before the lookup: the answer never tells a caller without the right whether the id exists.
      if (id !== actor.principal.id) exigir(actor, 'usuarios:leer');
      return { usuario: usuarioAProto(await usuarios.obtener(id)) };
    }),

    listUsuarios: unary(logger, 'ListUsuarios', async (request, caller) => {
      exigir(await actores.de(caller), 'usuarios:leer');
      const pageSize = pageSizeOf(request.pageSize);
      const page = await usuarios.listar(decodePageToken(request.pageToken), pageSize);
      const { items, nextPageToken } = listPageOf(
        page.usuarios,
        page.hasMore,
        (u) => u.id,
        (u) => itemSizeBound(u.usuario) + 16 * u.asignaciones.length,
      );
      return { usuarios: items.map(usuarioAProto), nextPageToken };
    }),

    updateUsuario: unary(
      logger,
      'UpdateUsuario',
      async (request, caller) => {
        const actor = await actores.de(caller);
        const id = requirePositiveId(request.id, 'id');
        await administrado(actor, id);
        const cambios = {
          ...(request.usuario !== undefined ? { usuario: validarNombreUsuario(request.usuario) } : {}),
          ...(estadoDeProto(request.estado) !== undefined ? { estado: estadoDeProto(request.estado) } : {}),
        };
        if (Object.keys(cambios).length === 0)
          throw InvalidArgumentError.field('solicitud', 'indique usuario o estado');
        return {
          usuario: usuarioAProto(
            await usuarios.actualizar(id, cambios, {
              caller,
              autor: actor.autor,
              expectedVersion: request.expectedVersion,
            }),
          ),
        };
      },
      idempotentBy(UpdateUsuarioRequest, undefined, porPrincipal),
    ),

    deleteUsuario: unary(
      logger,
      'DeleteUsuario',
      async (request, caller) => {
        const actor = await actores.de(caller);
        const id = requirePositiveId(request.id, 'id');
        await administrado(actor, id);
        await usuarios.eliminar(id, { caller, autor: actor.autor, expectedVersion: request.expectedVersion });
        return {};
      },
      idempotentBy(DeleteUsuarioRequest, undefined, porPrincipal),
    ),

    cambiarPassword: unary(
      logger,
      'CambiarPassword',
      async (request, caller) => {
        const actor = await actores.de(caller);
        const id = requirePositiveId(request.id, 'id');
        const propio = id === actor.principal.id;
        const objetivo = propio ? await usuarios.obtenerConHash(id) : await administrado(actor, id);
        if (objetivo.tipo === 'SERVICIO')
          throw InvalidArgumentError.field('password', USUARIO_MENSAJES.passwordServicio);
        const password = validarPassword(request.password);
        if (propio) {
          // One's own password needs the current one, admin or not: a stolen session must not lock its owner out.
          if (request.passwordActual === undefined)
            throw InvalidArgumentError.field('passwordActual', 'es obligatorio para cambiar su propia contraseña');
          const { ok } = await hasher.verify(
            (objetivo as { passwordHash?: string | null }).passwordHash ?? undefined,
            request.passwordActual,
          );
          if (!ok) throw InvalidArgumentError.field('passwordActual', 'no es la contraseña actual');
        }
        const passwordHash = await hasher.hash(password);
        return {
          usuario: usuarioAProto(
            await usuarios.cambiarPassword(id, passwordHash, {
              caller,
              autor: actor.autor,
              expectedVersion: request.expectedVersion,
            }),
          ),
        };
      },
      idempotentBy(CambiarPasswordRequest, undefined, porPrincipal),
    ),

    suspenderUsuario: unary(
      logger,
      'SuspenderUsuario',
      async (request, caller) => {
        const actor = await actores.de(caller);
        const id = requirePositiveId(request.id, 'id');
        const objetivo = await administrado(actor, id);
        // Idempotent: suspending a suspended user changes nothing and publishes nothing.
        if (
          objetivo.estado === 'SUSPENDIDO' &&
          (request.expectedVersion === undefined || request.expectedVersion === objetivo.version)
        ) {
          return { usuario: usuarioAProto(objetivo) };
        }
        const w = { caller, autor: actor.autor, expectedVersion: request.expectedVersion };
        return { usuario: usuarioAProto(await usuarios.actualizar(id, { estado: 'SUSPENDIDO' }, w)) };
      },
      idempotentBy(SuspenderUsuarioRequest, undefined, porPrincipal),
    ),

    setAsignaciones: unary(
      logger,
      'SetAsignaciones',
      async (request, caller) => {
        const actor = await actores.de(caller);
        exigir(actor, 'usuarios:administrar');
        const id = requirePositiveId(request.id, 'id');
        const nuevas = validarAsignaciones(request.asignaciones);
        const w = { caller, autor: actor.autor, expectedVersion: request.expectedVersion };
        const usuario = await usuarios.setAsignaciones(id, nuevas, w, (antes) => {
          // A user the caller does not cover is not its to change (read under the row lock), as for every other
          // change of a user; then both what is added and what is taken away must be the caller's to grant.
          exigirCobertura(actor, { id, asignaciones: antes });
          const despues = new Set(nuevas.map(clave));
          const previas = new Set(antes.map(clave));
          exigirConcesion(actor, [
            ...nuevas.filter((a) => !previas.has(clave(a))),
            ...antes.filter((a) => !despues.has(clave(a))),
          ]);
        });
        return { usuario: usuarioAProto(usuario) };
      },
      idempotentBy(SetAsignacionesRequest, undefined, porPrincipal),
    ),
  };
}
