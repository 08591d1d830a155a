import { PERMISOS, NOMBRES_ROL } from '@inventario/contract';
import { MAX_UNSIGNED_INT } from '@inventario/platform';
import { z } from 'zod';

/**
 * The identity routes' bodies (docs/contract.md §12.8), for components.schemas; strict, so an undocumented field fails
 * the contract tests.
 */

const describe = <T extends z.ZodType>(schema: T, description: string) => schema.meta({ description });
const id = z.int().min(1).max(MAX_UNSIGNED_INT);
const fecha = describe(
  z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/),
  'Fecha y hora ISO 8601 sin zona, siempre en UTC.',
);
const rol = describe(z.enum(NOMBRES_ROL as [string, ...string[]]), 'Un rol predefinido.');
const permiso = describe(z.enum(PERMISOS as [string, ...string[]]), 'Un permiso del catálogo, `recurso:accion`.');
const asignacion = z.strictObject({ rol, bodegaId: describe(id.nullable(), 'La bodega del rol; null: todas.') });
const asignacionEntrada = z.strictObject({
  rol,
  bodegaId: describe(id.nullable().optional(), 'La bodega del rol; sin ella, todas.'),
});
const permisoEfectivo = z.strictObject({
  permiso,
  todasLasBodegas: z.boolean(),
  bodegaIds: describe(z.array(id), 'Con todasLasBodegas false, las bodegas donde vale, en orden.'),
});
const tipo = z.enum(['HUMANO', 'SERVICIO']);
const estado = z.enum(['ACTIVO', 'SUSPENDIDO']);
const cursor = describe(z.string().nullable(), 'Pásalo como `cursor` para la página siguiente; null en la última.');
const usuario = z
  .strictObject({
    id,
    usuario: z.string().min(1),
    tipo,
    estado,
    asignaciones: z.array(asignacion),
    tienePassword: z.boolean(),
    version: id,
    fechaCreacion: fecha,
    fechaActualizacion: fecha,
  })
  .meta({ description: 'Un usuario (persona o cuenta de servicio); nunca su contraseña.' });
const token = z
  .strictObject({
    id,
    usuarioId: id,
    nombre: z.string(),
    expiraEn: fecha,
    permisos: describe(z.array(permisoEfectivo).nullable(), 'Su alcance; null: lo que su dueño pueda en cada uso.'),
    fechaCreacion: fecha,
    revocadoEn: fecha.nullable(),
    ultimoUso: describe(fecha.nullable(), 'Se anota a lo sumo una vez por minuto.'),
  })
  .meta({ description: 'Un token de API, sin su secreto.' });
const registro = z
  .strictObject({
    seq: id,
    eventoId: z.string(),
    accion: z.string(),
    recurso: z.string(),
    principalId: id.nullable(),
    usuario: z.string(),
    metodoAuth: z.string(),
    tokenId: id.nullable(),
    requestId: z.string(),
    direccion: z.string(),
    datos: describe(z.unknown(), 'Los datos del evento.'),
    ocurridoEn: fecha,
    hash: z.string(),
    hashAnterior: z.string(),
  })
  .meta({ description: 'Una fila del registro de auditoría, encadenada por hash.' });

export const IDENTIDAD_COMPONENTS = {
  ErrorDeIdentidad: z
    .object({ error: z.string().min(1), mensaje: z.string().min(1), adminsActivos: z.int().min(0).optional() })
    .meta({
      description:
        'Un conflicto de identidad-svc (409): ULTIMO_ADMIN (dejaría sin ningún ADMIN activo, con adminsActivos), ' +
        'ALREADY_EXISTS, IDEMPOTENCY_KEY_IN_USE, o la regla que lo impide, con sus datos.',
    }),
  Yo: z
    .strictObject({
      id,
      usuario: z.string(),
      tipo,
      asignaciones: z.array(asignacion),
      permisos: z.array(permisoEfectivo),
      metodoAuth: z.enum(['password', 'token', 'system']),
    })
    .meta({ description: 'Quien llama: sus asignaciones y sus permisos efectivos por bodega.' }),
  Usuario: usuario,
  UsuarioCreate: z.strictObject({
    usuario: z.string().min(1).max(100),
    password: describe(z.string().min(1).max(1024).optional(), 'Solo personas; 12 a 1024 caracteres.'),
    tipo: tipo.optional(),
    asignaciones: z.array(asignacionEntrada).optional(),
  }),
  UsuarioUpdate: z.strictObject({ usuario: z.string().min(1).max(100).optional(), estado: estado.optional() }),
  UsuariosPagina: z.strictObject({ usuarios: z.array(usuario), siguienteCursor: cursor }),
  CambioDePassword: z.strictObject({
    password: z.string().min(1).max(1024),
    passwordActual: describe(z.string().min(1).max(1024).optional(), 'Obligatoria al cambiar la propia.'),
  }),
  Asignaciones: z.strictObject({ asignaciones: z.array(asignacion) }),
  AsignacionesUpdate: z.strictObject({ asignaciones: z.array(asignacionEntrada) }),
  TokenCreate: z.strictObject({
    nombre: z.string().min(1).max(100),
    expiraEn: describe(fecha.optional(), 'Sin ella, la vigencia por defecto; nunca más que la máxima.'),
    permisos: describe(
      z.array(z.strictObject({ permiso, bodegaIds: z.array(id).min(1).optional() })).optional(),
      'Su alcance, dentro de los permisos de su dueño; sin él, los del dueño en cada uso.',
    ),
  }),
  TokenCreado: z
    .strictObject({
      id,
      token: describe(
        z.string().regex(/^inv_\d+_/),
        'El secreto `inv_<id>_<secreto>`: solo se muestra esta vez.',
      ).optional(),
      nombre: z.string(),
      expiraEn: fecha,
      permisos: z.array(permisoEfectivo).nullable(),
    })
    .meta({
      description: 'El token creado y su secreto (una repetición con la misma Idempotency-Key responde sin él).',
    }),
  Token: token,
  TokensPagina: z.strictObject({ tokens: z.array(token), siguienteCursor: cursor }),
  AuditoriaPagina: z.strictObject({ registros: z.array(registro), siguienteCursor: cursor }),
  VerificacionAuditoria: z.strictObject({
    consistente: z.boolean(),
    filas: z.int().min(0),
    primeraRota: describe(id.nullable(), 'La primera fila cuyo hash o enlace no se recalcula.'),
    motivo: z.string().nullable(),
    anclaSeq: id.nullable(),
    anclaHash: z.string().nullable(),
  }),
} as const;
