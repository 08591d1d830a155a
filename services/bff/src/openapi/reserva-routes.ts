import { headerRefs, json } from './components';
import { ex, op, type Route } from './routes';

/** docs/contract.md §13.2: the reservation routes, a row each, as the other tables. */
const linea = { id: 51, bodegaId: 3, productoId: 12, cantidad: 4, consumida: 0, retenida: 4 };
const reserva = {
  id: 21,
  referencia: 'pedido-8812',
  estado: 'ACTIVA',
  expiraEn: '2026-11-25T10:20:00',
  lineas: [linea],
  version: 1,
  usuario: 'admin',
  comentario: null,
  fechaCreacion: '2026-11-25T10:05:00',
  fechaActualizacion: '2026-11-25T10:05:00',
};
const consumida = {
  ...reserva,
  estado: 'CONSUMIDA',
  version: 2,
  lineas: [{ ...linea, consumida: 3, retenida: 0 }],
  operacionId: 40,
};
const liberada = { ...reserva, estado: 'LIBERADA', version: 2, lineas: [{ ...linea, retenida: 0 }] };
const ejemplo = (
  schema: 'Reserva' | 'ReservaConsumida' | 'ReservasPagina',
  description: string,
  value: unknown,
  ...h: ('ETag' | 'Location' | 'IdempotentReplayed')[]
) => json(schema, description, { ejemplo: value }, ...h);
const CONFLICTO = json('ErrorDeReserva', 'Una regla de las reservas la rechaza y no se escribe nada.', {
  stockInsuficiente: {
    error: 'STOCK_INSUFICIENTE',
    mensaje: 'Stock insuficiente para reservar: producto 12 en la bodega 3: hay 2 disponibles, se piden 4',
    bodegaId: 3,
    productoId: 12,
    disponible: 2,
    solicitado: 4,
    lineas: [{ bodegaId: 3, productoId: 12, solicitado: 4, disponible: 2 }],
  },
  expirada: { error: 'RESERVA_EXPIRADA', mensaje: 'La reserva 21 está expirada', reservaId: 21, estado: 'EXPIRADA' },
});

export const RESERVA_ROUTES: Record<string, Route[]> = {
  Reservas: [
    op('post /api/reservas', 'crearReserva', 'Reserva unidades hasta una expiración exacta', {
      description:
        'Todas las líneas o ninguna; las de un mismo nivel se suman. Cada nivel debe tener `disponible` (cantidad ' +
        '- reservada) suficiente: si no, 409 STOCK_INSUFICIENTE con `lineas`. 409 RESERVA_ACTIVA_EXISTENTE si la ' +
        'referencia ya tiene una activa. Publica inventario.reserva.creada. Admite Idempotency-Key.',
      parameters: ['IdempotencyKey'],
      body: {
        schema: 'ReservaCreate',
        examples: {
          pedido: ex({
            referencia: 'pedido-8812',
            ttlSegundos: 900,
            lineas: [{ bodegaId: 3, productoId: 12, cantidad: 4 }],
          }),
        },
      },
      responses: {
        201: ejemplo('Reserva', 'La reserva, ACTIVA.', reserva, 'ETag', 'Location', 'IdempotentReplayed'),
        409: CONFLICTO,
      },
      errors: [404],
    }),
    op('get /api/reservas', 'listarReservas', 'Lista las reservas', {
      description:
        'Las más recientes primero, por páginas (`cursor` = `siguienteCursor`); filtros referencia, estado, ' +
        'bodegaId y productoId.',
      responses: { 200: ejemplo('ReservasPagina', 'Una página.', { reservas: [reserva], siguienteCursor: null }) },
      errors: [400],
    }),
    op('get /api/reservas/{id}', 'obtenerReserva', 'Obtiene una reserva', {
      responses: {
        200: ejemplo('Reserva', 'La reserva, en el estado que tiene ahora.', reserva, 'ETag'),
        304: { description: 'If-None-Match nombra la versión actual; sin cuerpo.', headers: headerRefs('ETag') },
      },
    }),
    op('post /api/reservas/{id}/consumo', 'consumirReserva', 'Consume una reserva, entera o en parte', {
      description:
        'Escribe líneas SALIDA (motivo VENTA) y baja cantidad y reservada juntas, sin mirar lo disponible. 409 ' +
        'RESERVA_EXPIRADA desde el instante exacto de su expiración; RESERVA_<ESTADO> si ya no está activa. ' +
        '`liberarResto` libera lo que quede. Admite If-Match e Idempotency-Key.',
      parameters: ['IfMatch', 'IdempotencyKey'],
      body: {
        schema: 'ConsumoCreate',
        examples: { parcial: ex({ lineas: [{ lineaId: 51, cantidad: 3 }], liberarResto: true }) },
        optional: true,
      },
      responses: {
        200: ejemplo(
          'ReservaConsumida',
          'La reserva tras el consumo y su operación.',
          consumida,
          'ETag',
          'IdempotentReplayed',
        ),
        409: CONFLICTO,
      },
    }),
    op('post /api/reservas/{id}/liberacion', 'liberarReserva', 'Libera una reserva', {
      description:
        'Una sola transición a LIBERADA, con un solo evento; repetirla responde el estado actual sin otro evento. ' +
        'Liberar una reserva consumida, expirada o descubierta es 409 con su estado.',
      parameters: ['IfMatch', 'IdempotencyKey'],
      responses: {
        200: ejemplo('Reserva', 'La reserva, LIBERADA.', liberada, 'ETag', 'IdempotentReplayed'),
        409: CONFLICTO,
      },
    }),
    op('patch /api/reservas/{id}', 'extenderReserva', 'Extiende una reserva activa', {
      description:
        'Solo mientras está ACTIVA y sin vencer; el nuevo instante debe ser posterior al actual y dentro del ' +
        'máximo. Exige If-Match (428 sin él).',
      parameters: ['IfMatch', 'IdempotencyKey'],
      body: { schema: 'ReservaExtension', examples: { extension: ex({ expiraEn: '2026-11-25T11:00:00' }) } },
      responses: {
        200: ejemplo(
          'Reserva',
          'La reserva con su nueva expiración.',
          { ...reserva, version: 2, expiraEn: '2026-11-25T11:00:00' },
          'ETag',
        ),
        409: CONFLICTO,
      },
      errors: [428],
    }),
  ],
};
