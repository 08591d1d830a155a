import { TipoUsuario } from '@inventario/proto';
import type { IdentidadClient } from '../downstream/identidad-client';
import { Campos, registroJson, tokenJson, usuarioJson } from '../http/identidad-json';
import type { FieldResolver } from './context';
import { mutationResponse } from './mutation-result';
import { parseId } from './inputs';

/**
 * The identity routes mirrored in GraphQL (docs/contract.md §12.8), only
 * with identidad-svc: the same identidad-svc calls as REST, the same body
 * checks (Campos), the objects in the REST shapes. identidad-svc judges
 * every call; a refusal is the mutation's `error` (`FORBIDDEN: …`), or the
 * query field's error.
 */
export const IDENTIDAD_TYPEDEFS = /* GraphQL */ `
  "Adición (issue 26): una asignación de rol, en una bodega o en todas (bodegaId null)."
  type AsignacionRol {
    rol: String!
    bodegaId: ID
  }
  "Un permiso del catálogo y dónde vale."
  type PermisoEfectivo {
    permiso: String!
    todasLasBodegas: Boolean!
    bodegaIds: [ID!]!
  }
  type Yo {
    id: ID!
    usuario: String!
    tipo: String!
    asignaciones: [AsignacionRol!]!
    permisos: [PermisoEfectivo!]!
  }
  type Usuario {
    id: ID!
    usuario: String!
    tipo: String!
    estado: String!
    asignaciones: [AsignacionRol!]!
    tienePassword: Boolean!
    version: Int!
    fechaCreacion: DateTime
    fechaActualizacion: DateTime
  }
  type UsuariosPagina {
    usuarios: [Usuario!]!
    siguienteCursor: String
  }
  type TokenApi {
    id: ID!
    usuarioId: ID!
    nombre: String!
    expiraEn: DateTime
    "null: lo que su dueño pueda en cada uso."
    permisos: [PermisoEfectivo!]
    fechaCreacion: DateTime
    revocadoEn: DateTime
    ultimoUso: DateTime
  }
  type TokensPagina {
    tokens: [TokenApi!]!
    siguienteCursor: String
  }
  type RegistroAuditoria {
    seq: ID!
    eventoId: String!
    accion: String!
    recurso: String!
    principalId: ID
    usuario: String!
    metodoAuth: String!
    ocurridoEn: DateTime
    hash: String!
    hashAnterior: String!
  }
  type AuditoriaPagina {
    registros: [RegistroAuditoria!]!
    siguienteCursor: String
  }
  type VerificacionAuditoria {
    consistente: Boolean!
    filas: Int!
    primeraRota: ID
    motivo: String
  }
  input AsignacionRolInput {
    rol: String!
    bodegaId: ID
  }
  input PermisoInput {
    permiso: String!
    bodegaIds: [ID!]
  }
  type UsuarioResponse {
    success: Boolean
    message: String
    error: String
    usuario: Usuario
  }
  type TokenResponse {
    success: Boolean
    message: String
    error: String
    "El secreto inv_<id>_<secreto>: solo se muestra esta vez."
    secreto: String
    token: TokenApi
  }
  extend type Query {
    "Adición: quien llama, sus asignaciones y sus permisos efectivos (GET /api/yo)."
    yo: Yo!
    usuarios(cursor: String): UsuariosPagina!
    usuario(id: ID!): Usuario
    tokens(usuarioId: ID, cursor: String): TokensPagina!
    auditoria(principalId: ID, accion: String, desde: DateTime, hasta: DateTime, cursor: String): AuditoriaPagina!
    verificacionAuditoria: VerificacionAuditoria!
  }
  extend type Mutation {
    crearUsuario(
      usuario: String!
      password: String
      tipo: String
      asignaciones: [AsignacionRolInput!]
      idempotencyKey: String
    ): UsuarioResponse!
    fijarAsignaciones(
      id: ID!
      asignaciones: [AsignacionRolInput!]!
      version: Int
      idempotencyKey: String
    ): UsuarioResponse!
    suspenderUsuario(id: ID!, version: Int, idempotencyKey: String): UsuarioResponse!
    cambiarPassword(
      id: ID!
      password: String!
      passwordActual: String
      version: Int
      idempotencyKey: String
    ): UsuarioResponse!
    crearToken(
      nombre: String!
      usuarioId: ID
      expiraEn: DateTime
      permisos: [PermisoInput!]
      idempotencyKey: String
    ): TokenResponse!
    revocarToken(id: ID!, idempotencyKey: String): DeleteResponse!
  }
`;

type Args = Record<string, unknown>;
/** A GraphQL ID argument (text, or a number in a variable) as an id; anything else is the usual 400-style refusal. */
const idArg = (value: unknown, campo: string) =>
  parseId(typeof value === 'string' || typeof value === 'number' ? String(value) : '', campo);
const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
const num = (value: unknown) => (typeof value === 'number' ? value : undefined);
/** GraphQL IDs arrive as text: the REST body checks want numbers. */
const conIds = (items: unknown, campo: 'bodegaId' | 'bodegaIds') =>
  Array.isArray(items)
    ? items.map((item: Record<string, unknown>) => {
        const value = item[campo];
        return {
          ...item,
          [campo]: Array.isArray(value)
            ? value.map(Number)
            : value === null || value === undefined
              ? value
              : Number(value),
        };
      })
    : items;
const usuarioRes = (u: Parameters<typeof usuarioJson>[0] | undefined) => ({ usuario: u ? usuarioJson(u) : null });
const sinUsuario = { usuario: null };
const MENSAJES = (que: string) => ({ ok: `${que} correctamente`, fail: `No se pudo: ${que.toLowerCase()}` });

// The resolver map of every identity field of the schema (§12), one entry per field as the schema lists
// them: its length is the number of fields, each a call and a mapping, and splitting it would split the map.
export function createIdentidadResolvers(identidad: IdentidadClient): {
  Query: Record<string, FieldResolver>;
  Mutation: Record<string, FieldResolver>;
} {
  const query: Record<string, FieldResolver> = {
    yo: async (_p, _a, ctx) => {
      const yo = await identidad.llamar(ctx.caller, 'yo', {});
      const u = yo.usuario ? usuarioJson(yo.usuario) : undefined;
      return {
        id: yo.principal?.id,
        usuario: yo.principal?.usuario,
        tipo: u?.tipo ?? 'HUMANO',
        asignaciones: u?.asignaciones ?? [],
        permisos: yo.permisos,
      };
    },
    usuarios: async (_p, args: Args, ctx) => {
      const page = await identidad.llamar(ctx.caller, 'listUsuarios', {
        pageSize: 100,
        pageToken: text(args.cursor) ?? '',
      });
      return { usuarios: page.usuarios.map(usuarioJson), siguienteCursor: page.nextPageToken || null };
    },
    usuario: async (_p, args: Args, ctx) => {
      const { usuario } = await identidad.llamar(ctx.caller, 'getUsuario', { id: idArg(args.id, 'id') });
      return usuario ? usuarioJson(usuario) : null;
    },
    tokens: async (_p, args: Args, ctx) => {
      const usuarioId =
        args.usuarioId === undefined || args.usuarioId === null ? 0 : idArg(args.usuarioId, 'usuarioId');
      const page = await identidad.llamar(ctx.caller, 'listTokens', {
        usuarioId,
        pageSize: 100,
        pageToken: text(args.cursor) ?? '',
      });
      return { tokens: page.tokens.map(tokenJson), siguienteCursor: page.nextPageToken || null };
    },
    auditoria: async (_p, args: Args, ctx) => {
      const fecha = (value: unknown) => (typeof value === 'string' ? new Date(`${value}Z`) : undefined);
      const page = await identidad.llamar(ctx.caller, 'listAuditoria', {
        principalId:
          args.principalId === undefined || args.principalId === null
            ? undefined
            : idArg(args.principalId, 'principalId'),
        accion: text(args.accion) ?? '',
        desde: fecha(args.desde),
        hasta: fecha(args.hasta),
        pageSize: 100,
        pageToken: text(args.cursor) ?? '',
      });
      return { registros: page.registros.map(registroJson), siguienteCursor: page.nextPageToken || null };
    },
    verificacionAuditoria: async (_p, _a, ctx) => {
      const v = await identidad.llamar(ctx.caller, 'verificarAuditoria', {});
      return {
        consistente: v.consistente,
        filas: v.filas,
        primeraRota: v.primeraRota ?? null,
        motivo: v.motivo || null,
      };
    },
  };

  const mutation: Record<string, FieldResolver> = {
    crearUsuario: (_p, args: Args, ctx) =>
      mutationResponse(
        async () => {
          const c = new Campos(
            {
              usuario: args.usuario,
              password: args.password,
              tipo: args.tipo,
              asignaciones: conIds(args.asignaciones, 'bodegaId'),
            },
            ['usuario', 'password', 'tipo', 'asignaciones'],
          );
          const datos = {
            usuario: c.texto('usuario', { requerido: true, max: 100 }),
            password: c.texto('password', { max: 1024 }),
          };
          const tipo = c.enumerado('tipo', ['HUMANO', 'SERVICIO'] as const);
          const asignaciones = c.asignaciones('asignaciones') ?? [];
          c.fin();
          const res = await identidad.llamar(ctx.caller, 'createUsuario', {
            usuario: datos.usuario!,
            password: datos.password,
            tipo: tipo === 'SERVICIO' ? TipoUsuario.TIPO_USUARIO_SERVICIO : TipoUsuario.TIPO_USUARIO_HUMANO,
            asignaciones,
            requestId: text(args.idempotencyKey),
          });
          return res.usuario;
        },
        MENSAJES('Usuario creado'),
        { onSuccess: usuarioRes, onFailure: sinUsuario },
      ),
    fijarAsignaciones: (_p, args: Args, ctx) =>
      mutationResponse(
        async () => {
          const c = new Campos({ asignaciones: conIds(args.asignaciones, 'bodegaId') }, ['asignaciones']);
          const asignaciones = c.asignaciones('asignaciones', { requerido: true }) ?? [];
          c.fin();
          const res = await identidad.llamar(ctx.caller, 'setAsignaciones', {
            id: idArg(args.id, 'id'),
            asignaciones,
            expectedVersion: num(args.version),
            requestId: text(args.idempotencyKey),
          });
          return res.usuario;
        },
        MENSAJES('Asignaciones cambiadas'),
        { onSuccess: usuarioRes, onFailure: sinUsuario },
      ),
    suspenderUsuario: (_p, args: Args, ctx) =>
      mutationResponse(
        async () =>
          (
            await identidad.llamar(ctx.caller, 'suspenderUsuario', {
              id: idArg(args.id, 'id'),
              expectedVersion: num(args.version),
              requestId: text(args.idempotencyKey),
            })
          ).usuario,
        MENSAJES('Usuario suspendido'),
        { onSuccess: usuarioRes, onFailure: sinUsuario },
      ),
    cambiarPassword: (_p, args: Args, ctx) =>
      mutationResponse(
        async () =>
          (
            await identidad.llamar(ctx.caller, 'cambiarPassword', {
              id: idArg(args.id, 'id'),
              password: text(args.password) ?? '',
              passwordActual: text(args.passwordActual),
              expectedVersion: num(args.version),
              requestId: text(args.idempotencyKey),
            })
          ).usuario,
        MENSAJES('Contraseña cambiada'),
        { onSuccess: usuarioRes, onFailure: sinUsuario },
      ),
    crearToken: (_p, args: Args, ctx) =>
      mutationResponse(
        async () => {
          const c = new Campos(
            { nombre: args.nombre, expiraEn: args.expiraEn, permisos: conIds(args.permisos, 'bodegaIds') },
            ['nombre', 'expiraEn', 'permisos'],
          );
          const datos = {
            nombre: c.texto('nombre', { requerido: true, max: 100 }),
            expiraEn: c.fecha('expiraEn'),
            permisos: c.permisos('permisos'),
          };
          c.fin();
          const usuarioId =
            args.usuarioId === undefined || args.usuarioId === null ? 0 : idArg(args.usuarioId, 'usuarioId');
          return identidad.llamar(ctx.caller, 'createToken', {
            usuarioId,
            nombre: datos.nombre!,
            expiraEn: datos.expiraEn,
            permisos: datos.permisos ?? [],
            requestId: text(args.idempotencyKey),
          });
        },
        MENSAJES('Token creado'),
        {
          onSuccess: (res) => ({ secreto: res.secreto || null, token: res.token ? tokenJson(res.token) : null }),
          onFailure: { secreto: null, token: null },
        },
      ),
    revocarToken: (_p, args: Args, ctx) =>
      mutationResponse(
        () =>
          identidad.llamar(ctx.caller, 'revokeToken', {
            id: idArg(args.id, 'id'),
            requestId: text(args.idempotencyKey),
          }),
        MENSAJES('Token revocado'),
        { onSuccess: () => ({}), onFailure: {} },
      ),
  };
  return { Query: query, Mutation: mutation };
}
