import express, { type Request, type Response } from 'express';
import { InvalidArgumentError, validateFields, type FieldViolation } from '@inventario/platform';
import { EstadoUsuario, TipoUsuario } from '@inventario/proto';
import type { IdentidadClient } from '../downstream/identidad-client';
import { callerOf } from './auth';
import { asignacionJson, Campos, permisoJson, registroJson, tokenJson, usuarioJson } from './identidad-json';
import { jsonBody } from './json-body';
import { malformedPathId, parsePathId } from './request-params';
import { sendJson } from './rest-json';
import { etagOf, sendRecord, writeOptionsOf } from './safe-write-headers';

/**
 * The identity routes (docs/contract.md §12.8): users, their bindings,
 * API tokens and the audit trail, translated to identidad-svc, which
 * decides who may do what from the caller's current rights (no escalation,
 * the last ADMIN) and answers the 403s. Only mounted with identidad-svc.
 */

const TIPO = { HUMANO: TipoUsuario.TIPO_USUARIO_HUMANO, SERVICIO: TipoUsuario.TIPO_USUARIO_SERVICIO } as const;
const ESTADO = {
  ACTIVO: EstadoUsuario.ESTADO_USUARIO_ACTIVO,
  SUSPENDIDO: EstadoUsuario.ESTADO_USUARIO_SUSPENDIDO,
} as const;
const PAGE_SIZE = 100;

/** Known query parameters only (an unknown one is a 400, as on every route); each a single value. */
function query(req: Request, allowed: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  const violations: FieldViolation[] = [];
  for (const [key, value] of Object.entries(req.query as Record<string, unknown>)) {
    if (!allowed.includes(key)) violations.push({ campo: key, mensaje: 'parámetro de consulta desconocido' });
    else if (typeof value !== 'string') violations.push({ campo: key, mensaje: 'debe aparecer una sola vez' });
    else out[key] = value;
  }
  if (violations.length > 0) throw new InvalidArgumentError(violations);
  return out;
}

function optionalId(value: string | undefined, campo: string): number | undefined {
  return value === undefined ? undefined : parsePathId(value, campo);
}

function optionalDate(value: string | undefined, campo: string): Date | undefined {
  if (value === undefined) return undefined;
  const date = new Date(/[zZ]|[+-]\d\d:\d\d$/.test(value) ? value : `${value}Z`);
  if (Number.isNaN(date.getTime()))
    throw InvalidArgumentError.field(campo, 'debe ser una fecha ISO 8601 (UTC), p. ej. 2026-12-31T00:00:00');
  return date;
}

/** If-Match as the expected version (`*`: any). */
const versionOf = (ifMatch: number | '*' | undefined) => (typeof ifMatch === 'number' ? ifMatch : undefined);

// The identity routes of docs/contract.md §12, registered in the order express matches them: a list
// of thin handlers that each only translate, kept in one function so every identity URL reads in one place.
export function createIdentidadRouter(identidad: IdentidadClient): express.Router {
  const router = express.Router();
  // Per route: the router is mounted on the API prefix itself, beside the other routes.
  const body = jsonBody();
  const sendUsuario = (res: Response, status: number, usuario: Parameters<typeof usuarioJson>[0] | undefined) => {
    if (!usuario) throw new Error('identidad-svc answered without the user');
    res.setHeader('ETag', etagOf(usuario.version));
    sendJson(res, status, usuarioJson(usuario));
  };

  router.get('/yo', async (_req, res) => {
    const yo = await identidad.llamar(callerOf(res), 'yo', {});
    const usuario = yo.usuario ? usuarioJson(yo.usuario) : undefined;
    sendJson(res, 200, {
      id: yo.principal?.id ?? usuario?.id,
      usuario: yo.principal?.usuario ?? usuario?.usuario,
      tipo: usuario?.tipo ?? 'HUMANO',
      asignaciones: usuario?.asignaciones ?? [],
      permisos: yo.permisos.map(permisoJson),
      metodoAuth: callerOf(res).principal?.metodoAuth,
    });
  });

  router.post('/usuarios', body, async (req, res) => {
    const { datos, write } = validateFields({
      datos: () => {
        const c = new Campos(req.body, ['usuario', 'password', 'tipo', 'asignaciones']);
        const parsed = {
          usuario: c.texto('usuario', { requerido: true, max: 100 }),
          password: c.texto('password', { max: 1024 }),
          tipo: c.enumerado('tipo', ['HUMANO', 'SERVICIO'] as const),
          asignaciones: c.asignaciones('asignaciones'),
        };
        c.fin();
        return parsed;
      },
      write: () => writeOptionsOf(req, res, { conditional: false }),
    });
    const { usuario } = await identidad.llamar(
      callerOf(res),
      'createUsuario',
      {
        usuario: datos.usuario!,
        password: datos.password,
        tipo: TIPO[datos.tipo ?? 'HUMANO'],
        asignaciones: datos.asignaciones ?? [],
        requestId: write.idempotencyKey,
      },
      write.onReplay,
    );
    res.location(`${req.baseUrl}/usuarios/${usuario!.id}`);
    sendUsuario(res, 201, usuario);
  });

  router.get('/usuarios', async (req, res) => {
    const { cursor } = query(req, ['cursor']);
    const page = await identidad.llamar(callerOf(res), 'listUsuarios', {
      pageSize: PAGE_SIZE,
      pageToken: cursor ?? '',
    });
    sendJson(res, 200, { usuarios: page.usuarios.map(usuarioJson), siguienteCursor: page.nextPageToken || null });
  });

  router.get('/usuarios/:id', async (req, res) => {
    const { usuario } = await identidad.llamar(callerOf(res), 'getUsuario', { id: parsePathId(String(req.params.id)) });
    if (!usuario) throw new Error('identidad-svc answered without the user');
    sendRecord(req, res, etagOf(usuario.version), () => sendUsuario(res, 200, usuario));
  });

  router.patch('/usuarios/:id', body, async (req, res) => {
    const { id, datos, write } = validateFields({
      id: () => parsePathId(String(req.params.id)),
      datos: () => {
        const c = new Campos(req.body, ['usuario', 'estado']);
        const parsed = {
          usuario: c.texto('usuario', { max: 100 }),
          estado: c.enumerado('estado', ['ACTIVO', 'SUSPENDIDO'] as const),
        };
        if (parsed.usuario === undefined && parsed.estado === undefined && c.violations.length === 0)
          c.violations.push({ campo: 'cuerpo', mensaje: 'debe traer usuario o estado' });
        c.fin();
        return parsed;
      },
      write: () => writeOptionsOf(req, res, { conditional: true }),
    });
    const { usuario } = await identidad.llamar(
      callerOf(res),
      'updateUsuario',
      {
        id,
        usuario: datos.usuario,
        estado: datos.estado ? ESTADO[datos.estado] : EstadoUsuario.ESTADO_USUARIO_UNSPECIFIED,
        expectedVersion: versionOf(write.ifMatch),
        requestId: write.idempotencyKey,
      },
      write.onReplay,
    );
    sendUsuario(res, 200, usuario);
  });

  router.delete('/usuarios/:id', async (req, res) => {
    const { id, write } = validateFields({
      id: () => parsePathId(String(req.params.id)),
      write: () => writeOptionsOf(req, res, { conditional: true }),
    });
    await identidad.llamar(
      callerOf(res),
      'deleteUsuario',
      { id, expectedVersion: versionOf(write.ifMatch), requestId: write.idempotencyKey },
      write.onReplay,
    );
    res.status(204).end();
  });

  router.put('/usuarios/:id/password', body, async (req, res) => {
    const { id, datos, write } = validateFields({
      id: () => parsePathId(String(req.params.id)),
      datos: () => {
        const c = new Campos(req.body, ['password', 'passwordActual']);
        const parsed = {
          password: c.texto('password', { requerido: true, max: 1024 }),
          passwordActual: c.texto('passwordActual', { max: 1024 }),
        };
        c.fin();
        return parsed;
      },
      write: () => writeOptionsOf(req, res, { conditional: true }),
    });
    const { usuario } = await identidad.llamar(
      callerOf(res),
      'cambiarPassword',
      {
        id,
        password: datos.password!,
        passwordActual: datos.passwordActual,
        expectedVersion: versionOf(write.ifMatch),
        requestId: write.idempotencyKey,
      },
      write.onReplay,
    );
    sendUsuario(res, 200, usuario);
  });

  router.post('/usuarios/:id/suspension', body, async (req, res) => {
    const { id, write } = validateFields({
      id: () => parsePathId(String(req.params.id)),
      write: () => writeOptionsOf(req, res, { conditional: true }),
    });
    const { usuario } = await identidad.llamar(
      callerOf(res),
      'suspenderUsuario',
      { id, expectedVersion: versionOf(write.ifMatch), requestId: write.idempotencyKey },
      write.onReplay,
    );
    sendUsuario(res, 200, usuario);
  });

  router.get('/usuarios/:id/asignaciones', async (req, res) => {
    const { usuario } = await identidad.llamar(callerOf(res), 'getUsuario', { id: parsePathId(String(req.params.id)) });
    if (!usuario) throw new Error('identidad-svc answered without the user');
    sendRecord(req, res, etagOf(usuario.version), () => {
      res.setHeader('ETag', etagOf(usuario.version));
      sendJson(res, 200, { asignaciones: usuario.asignaciones.map(asignacionJson) });
    });
  });

  router.put('/usuarios/:id/asignaciones', body, async (req, res) => {
    const { id, datos, write } = validateFields({
      id: () => parsePathId(String(req.params.id)),
      datos: () => {
        const c = new Campos(req.body, ['asignaciones']);
        const asignaciones = c.asignaciones('asignaciones', { requerido: true });
        c.fin();
        return { asignaciones: asignaciones! };
      },
      write: () => writeOptionsOf(req, res, { conditional: true }),
    });
    const { usuario } = await identidad.llamar(
      callerOf(res),
      'setAsignaciones',
      {
        id,
        asignaciones: datos.asignaciones,
        expectedVersion: versionOf(write.ifMatch),
        requestId: write.idempotencyKey,
      },
      write.onReplay,
    );
    if (!usuario) throw new Error('identidad-svc answered without the user');
    res.setHeader('ETag', etagOf(usuario.version));
    sendJson(res, 200, { asignaciones: usuario.asignaciones.map(asignacionJson) });
  });

  const crearToken = async (req: Request, res: Response, usuarioId: number) => {
    const { datos, write } = validateFields({
      datos: () => {
        const c = new Campos(req.body, ['nombre', 'expiraEn', 'permisos']);
        const parsed = {
          nombre: c.texto('nombre', { requerido: true, max: 100 }),
          expiraEn: c.fecha('expiraEn'),
          permisos: c.permisos('permisos'),
        };
        c.fin();
        return parsed;
      },
      write: () => writeOptionsOf(req, res, { conditional: false }),
    });
    const { token, secreto } = await identidad.llamar(
      callerOf(res),
      'createToken',
      {
        usuarioId,
        nombre: datos.nombre!,
        expiraEn: datos.expiraEn,
        permisos: datos.permisos ?? [],
        requestId: write.idempotencyKey,
      },
      write.onReplay,
    );
    if (!token) throw new Error('identidad-svc answered without the token');
    const json = tokenJson(token);
    res.location(`${req.baseUrl}/tokens/${token.id}`);
    // `token` is the secret, shown this once (a keyed replay answers without it: secrets are never stored).
    sendJson(res, 201, {
      id: json.id,
      ...(secreto ? { token: secreto } : {}),
      nombre: json.nombre,
      expiraEn: json.expiraEn,
      permisos: json.permisos,
    });
  };

  router.post('/tokens', body, (req, res) => crearToken(req, res, 0));
  router.post('/usuarios/:id/tokens', body, (req, res) => crearToken(req, res, parsePathId(String(req.params.id))));

  router.get('/tokens', async (req, res) => {
    const q = query(req, ['usuarioId', 'cursor']);
    const page = await identidad.llamar(callerOf(res), 'listTokens', {
      usuarioId: optionalId(q.usuarioId, 'usuarioId') ?? 0,
      pageSize: PAGE_SIZE,
      pageToken: q.cursor ?? '',
    });
    sendJson(res, 200, { tokens: page.tokens.map(tokenJson), siguienteCursor: page.nextPageToken || null });
  });

  router.delete('/tokens/:id', async (req, res) => {
    const { id, write } = validateFields({
      id: () => parsePathId(String(req.params.id)),
      write: () => writeOptionsOf(req, res, { conditional: false }),
    });
    await identidad.llamar(callerOf(res), 'revokeToken', { id, requestId: write.idempotencyKey }, write.onReplay);
    res.status(204).end();
  });

  router.get('/auditoria', async (req, res) => {
    const q = query(req, ['principalId', 'accion', 'desde', 'hasta', 'cursor']);
    const filtro = validateFields({
      principalId: () => optionalId(q.principalId, 'principalId'),
      desde: () => optionalDate(q.desde, 'desde'),
      hasta: () => optionalDate(q.hasta, 'hasta'),
    });
    const page = await identidad.llamar(callerOf(res), 'listAuditoria', {
      ...filtro,
      accion: q.accion ?? '',
      pageSize: PAGE_SIZE,
      pageToken: q.cursor ?? '',
    });
    sendJson(res, 200, { registros: page.registros.map(registroJson), siguienteCursor: page.nextPageToken || null });
  });

  router.get('/auditoria/verificacion', async (_req, res) => {
    const v = await identidad.llamar(callerOf(res), 'verificarAuditoria', {});
    sendJson(res, 200, {
      consistente: v.consistente,
      filas: v.filas,
      primeraRota: v.primeraRota ?? null,
      motivo: v.motivo || null,
      anclaSeq: v.anclaSeq ?? null,
      anclaHash: v.anclaHash || null,
    });
  });

  router.use(malformedPathId);
  return router;
}
