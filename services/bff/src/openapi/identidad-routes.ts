import { json } from './components';
import { ex, op, type Route } from './routes';

/**
 * The identity routes (docs/contract.md §12.8), a tag of the REST table; only served when the BFF runs with
 * identidad-svc.
 */

const creado = { fechaCreacion: '2026-11-22T14:03:07', fechaActualizacion: '2026-11-22T14:03:07' };
const usuario = {
  id: 7,
  usuario: 'ana.lopez',
  tipo: 'HUMANO',
  estado: 'ACTIVO',
  asignaciones: [{ rol: 'OPERADOR', bodegaId: 3 }],
  tienePassword: true,
  version: 1,
  ...creado,
};
const permisos = [
  { permiso: 'existencias:leer', todasLasBodegas: false, bodegaIds: [3] },
  { permiso: 'existencias:mover', todasLasBodegas: false, bodegaIds: [3] },
];
const yo = {
  id: 7,
  usuario: 'ana.lopez',
  tipo: 'HUMANO',
  asignaciones: usuario.asignaciones,
  permisos,
  metodoAuth: 'password',
};
const token = {
  id: 4,
  usuarioId: 9,
  nombre: 'escáner de la bodega 3',
  expiraEn: '2027-02-20T14:03:07',
  permisos: [permisos[0]],
  fechaCreacion: '2026-11-22T14:03:07',
  revocadoEn: null,
  ultimoUso: null,
};
const registro = {
  seq: 120,
  eventoId: '9b2f0d7e-7a51-4e8e-8d5c-0c1f4a2b6e11',
  accion: 'UsuarioCreado',
  recurso: '/usuarios/7',
  principalId: 1,
  usuario: 'admin',
  metodoAuth: 'password',
  tokenId: null,
  requestId: '',
  direccion: '',
  datos: { usuarioId: 7, nombre: 'ana.lopez' },
  ocurridoEn: '2026-11-22T14:03:07',
  hash: 'a3f1…',
  hashAnterior: '77c0…',
};
const tokenCreado = {
  id: token.id,
  token: 'inv_4_Zk3…',
  nombre: token.nombre,
  expiraEn: token.expiraEn,
  permisos: token.permisos,
};
const CONFLICTO = json('ErrorDeIdentidad', 'No se hizo nada: la regla que lo impide, con sus datos.', {
  ultimoAdmin: { error: 'ULTIMO_ADMIN', mensaje: 'No puede quedar ningún ADMIN activo', adminsActivos: 1 },
});
const usuarioRespuesta = (description: string, ...headers: ('ETag' | 'Location' | 'IdempotentReplayed')[]) =>
  json('Usuario', description, { usuario }, ...headers);

export const IDENTIDAD_ROUTES: Record<string, Route[]> = {
  Identidad: [
    op('get /api/yo', 'yo', 'Quién soy: mis asignaciones y mis permisos efectivos', {
      description: 'Para que una interfaz oculte lo que no está permitido.',
      responses: { 200: json('Yo', 'Quien llama.', { yo }) },
    }),
    op('post /api/usuarios', 'crearUsuario', 'Crea un usuario', {
      description:
        'Requiere usuarios:administrar, y cada asignación debe poder concederla quien llama (sin escalar ' +
        'privilegios). 409 si el nombre ya existe (sin distinguir mayúsculas). Admite Idempotency-Key.',
      parameters: ['IdempotencyKey'],
      body: {
        schema: 'UsuarioCreate',
        examples: {
          persona: ex({
            usuario: 'ana.lopez',
            password: 'una-contraseña-larga',
            asignaciones: [{ rol: 'OPERADOR', bodegaId: 3 }],
          }),
        },
      },
      responses: { 201: usuarioRespuesta('El usuario creado (versión 1).', 'Location', 'ETag', 'IdempotentReplayed') },
    }),
    op('get /api/usuarios', 'listarUsuarios', 'Lista los usuarios', {
      description: 'Requiere usuarios:leer. En orden de id, de 100 en 100.',
      queryParameters: [
        {
          name: 'cursor',
          in: 'query',
          description: 'El siguienteCursor de la página anterior.',
          schema: { type: 'string' },
        },
      ],
      responses: {
        200: json('UsuariosPagina', 'Una página.', { pagina: { usuarios: [usuario], siguienteCursor: null } }),
      },
    }),
    op('get /api/usuarios/{id}', 'obtenerUsuario', 'Obtiene un usuario', {
      parameters: ['IfNoneMatch'],
      responses: {
        200: usuarioRespuesta('El usuario; su ETag es su versión.', 'ETag'),
        304: { description: 'Sin cambios; sin cuerpo.' },
      },
    }),
    op('patch /api/usuarios/{id}', 'actualizarUsuario', 'Renombra, suspende o reactiva un usuario', {
      description:
        'Requiere usuarios:administrar. 409 ULTIMO_ADMIN si dejaría sin ningún ADMIN activo. Admite If-Match ' +
        'e Idempotency-Key.',
      parameters: ['IfMatch', 'IdempotencyKey'],
      body: { schema: 'UsuarioUpdate', examples: { suspender: ex({ estado: 'SUSPENDIDO' }) } },
      responses: { 200: usuarioRespuesta('El usuario actualizado.', 'ETag', 'IdempotentReplayed'), 409: CONFLICTO },
    }),
    op('delete /api/usuarios/{id}', 'eliminarUsuario', 'Elimina un usuario y revoca sus tokens', {
      description:
        'Requiere usuarios:administrar. 409 ULTIMO_ADMIN para el último ADMIN activo. Admite If-Match ' +
        'e Idempotency-Key.',
      parameters: ['IfMatch', 'IdempotencyKey'],
      responses: { 204: { description: 'Eliminado; sin cuerpo.' }, 409: CONFLICTO },
    }),
    op('put /api/usuarios/{id}/password', 'cambiarPassword', 'Cambia la contraseña', {
      description:
        'La propia con passwordActual, o la de cualquiera con usuarios:administrar. Invalida al instante las ' +
        'credenciales en caché.',
      parameters: ['IfMatch', 'IdempotencyKey'],
      body: {
        schema: 'CambioDePassword',
        examples: { propia: ex({ password: 'otra-contraseña-larga', passwordActual: 'una-contraseña-larga' }) },
      },
      responses: { 200: usuarioRespuesta('El usuario (su versión sube).', 'ETag', 'IdempotentReplayed') },
    }),
    op('post /api/usuarios/{id}/suspension', 'suspenderUsuario', 'Suspende un usuario', {
      description:
        'Requiere usuarios:administrar; idempotente. Deja de autenticarse al instante, por contraseña y por ' +
        'token. 409 ULTIMO_ADMIN.',
      parameters: ['IfMatch', 'IdempotencyKey'],
      responses: { 200: usuarioRespuesta('El usuario suspendido.', 'ETag', 'IdempotentReplayed'), 409: CONFLICTO },
    }),
    op('get /api/usuarios/{id}/asignaciones', 'obtenerAsignaciones', 'Las asignaciones de un usuario', {
      parameters: ['IfNoneMatch'],
      responses: {
        200: json(
          'Asignaciones',
          'Sus asignaciones; la ETag es la versión del usuario.',
          { asignaciones: { asignaciones: usuario.asignaciones } },
          'ETag',
        ),
        304: { description: 'Sin cambios; sin cuerpo.' },
      },
    }),
    op('put /api/usuarios/{id}/asignaciones', 'fijarAsignaciones', 'Reemplaza todas las asignaciones de un usuario', {
      description:
        'Requiere usuarios:administrar, y quien llama debe poder conceder (y quitar) cada asignación que cambia. ' +
        '409 ULTIMO_ADMIN. Admite If-Match e Idempotency-Key.',
      parameters: ['IfMatch', 'IdempotencyKey'],
      body: {
        schema: 'AsignacionesUpdate',
        examples: { lector: ex({ asignaciones: [{ rol: 'LECTOR', bodegaId: 3 }] }) },
      },
      responses: {
        200: json(
          'Asignaciones',
          'Las asignaciones nuevas.',
          { asignaciones: { asignaciones: [{ rol: 'LECTOR', bodegaId: 3 }] } },
          'ETag',
        ),
        409: CONFLICTO,
      },
    }),
    op('post /api/tokens', 'crearToken', 'Crea un token de API propio', {
      description:
        'Requiere tokens:propios. Su alcance no puede superar los permisos de quien llama, y en cada uso vale a lo ' +
        'sumo lo que su dueño pueda entonces. El secreto se muestra solo en esta respuesta. Úselo como ' +
        '`Authorization: Bearer inv_<id>_<secreto>`.',
      parameters: ['IdempotencyKey'],
      body: {
        schema: 'TokenCreate',
        examples: { escaner: ex({ nombre: 'escáner', permisos: [{ permiso: 'existencias:leer', bodegaIds: [3] }] }) },
      },
      responses: {
        201: json('TokenCreado', 'El token y su secreto.', { creado: tokenCreado }, 'Location', 'IdempotentReplayed'),
      },
    }),
    op('post /api/usuarios/{id}/tokens', 'crearTokenDeServicio', 'Crea un token para una cuenta de servicio', {
      description: 'Requiere usuarios:administrar; solo cuentas de servicio (tipo SERVICIO).',
      parameters: ['IdempotencyKey'],
      body: {
        schema: 'TokenCreate',
        examples: { integracion: ex({ nombre: 'ERP', expiraEn: '2027-02-20T00:00:00' }) },
      },
      responses: {
        201: json('TokenCreado', 'El token y su secreto.', { creado: tokenCreado }, 'Location', 'IdempotentReplayed'),
      },
    }),
    op('get /api/tokens', 'listarTokens', 'Lista tokens, sin sus secretos', {
      description: 'Los propios; con usuarioId, los de otro usuario (usuarios:leer).',
      queryParameters: [
        {
          name: 'usuarioId',
          in: 'query',
          description: 'El dueño (por defecto, quien llama).',
          schema: { type: 'integer', minimum: 1 },
        },
        {
          name: 'cursor',
          in: 'query',
          description: 'El siguienteCursor de la página anterior.',
          schema: { type: 'string' },
        },
      ],
      responses: { 200: json('TokensPagina', 'Una página.', { pagina: { tokens: [token], siguienteCursor: null } }) },
    }),
    op('delete /api/tokens/{id}', 'revocarToken', 'Revoca un token', {
      description:
        'El propio (tokens:propios) o cualquiera (usuarios:administrar); idempotente. Deja de valer en menos de 1 ' +
        's en todas las réplicas.',
      parameters: ['IdempotencyKey'],
      responses: { 204: { description: 'Revocado; sin cuerpo.' } },
    }),
    op('get /api/auditoria', 'listarAuditoria', 'El registro de auditoría', {
      description: 'Requiere auditoria:leer. Lo más reciente primero, de 100 en 100.',
      queryParameters: [
        {
          name: 'principalId',
          in: 'query',
          description: 'Solo lo hecho por este usuario.',
          schema: { type: 'integer', minimum: 1 },
        },
        {
          name: 'accion',
          in: 'query',
          description: 'Solo este tipo de evento (UsuarioCreado, ProductoActualizado, AutenticacionFallida, …).',
          schema: { type: 'string' },
        },
        { name: 'desde', in: 'query', description: 'Desde esta fecha (UTC).', schema: { type: 'string' } },
        { name: 'hasta', in: 'query', description: 'Hasta esta fecha (UTC).', schema: { type: 'string' } },
        {
          name: 'cursor',
          in: 'query',
          description: 'El siguienteCursor de la página anterior.',
          schema: { type: 'string' },
        },
      ],
      responses: {
        200: json('AuditoriaPagina', 'Una página.', { pagina: { registros: [registro], siguienteCursor: null } }),
      },
    }),
    op('get /api/auditoria/verificacion', 'verificarAuditoria', 'Recalcula la cadena de auditoría', {
      description:
        'Requiere consistencia:verificar. Nombra la primera fila que no se recalcula, y compara con el ' +
        'último ancla publicado.',
      responses: {
        200: json('VerificacionAuditoria', 'El resultado.', {
          ok: { consistente: true, filas: 120, primeraRota: null, motivo: null, anclaSeq: 118, anclaHash: 'c0ffee…' },
        }),
      },
    }),
  ],
};
