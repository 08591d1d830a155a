/**
 * The stock writes' hot statements are sent as fixed text (sentencias-fijas.ts, issue 23). Each is
 * pinned here to what knex's query builder builds for the same statement (the builder calls the
 * stores made before), for one and for several rows or levels: the same SQL, character for
 * character, and the same bindings in the same order. No database: knex only builds.
 */
import { createDb, outboxInsert, type Knex, type OutboxEvent } from '@inventario/platform';
import {
  actualizarNivel,
  bajarReservada,
  consumirLinea,
  insertarConsumos,
  insertarEventos,
  insertarMovimientos,
  insertarNivel,
  insertarOperacion,
  insertarTerminal,
  leerBodegas,
  leerLineasDeReserva,
  leerNiveles,
  moverOcupacionBodega,
  nivelesConReservas,
  nivelesDeReserva,
  nuevaVersionDeReserva,
  sumarATramo,
  terminarFila,
  type FilaConsumo,
  type FilaMovimiento,
  type FilaOperacion,
  type SqlFija,
} from '../src/store/sentencias-fijas';

// Never connects: knex opens a connection only to run a query.
const db = createDb('mysql://root@127.0.0.1:3306/sin_conexion');
afterAll(() => db.destroy());

const knex = (q: Knex.QueryBuilder): SqlFija => {
  const { sql, bindings } = q.toSQL().toNative();
  return { sql, bindings: [...bindings] as Knex.RawBinding[] };
};

const AT = new Date('2026-11-30T07:00:00.000Z');
const INSTANTE = '2026-11-30 07:00:00.123456';

const movimiento = (i: number, comentario: string | null): FilaMovimiento => ({
  operacion_id: 70 + i,
  bodega_id: 3 + i,
  producto_id: 9001 + i,
  tipo: i % 2 === 0 ? 'SALIDA' : 'TRANSFERENCIA',
  motivo: i % 2 === 0 ? 'VENTA' : 'TRANSFERENCIA',
  cantidad: 1 + i,
  cantidad_anterior: 10 + i,
  cantidad_posterior: 9,
  version: 4 + i,
  usuario: 'ana',
  comentario,
  fecha: AT,
});

const consumo = (i: number): FilaConsumo => ({
  reserva_id: 12,
  linea_id: 40 + i,
  operacion_id: 77,
  cantidad: 2 + i,
  fecha: INSTANTE,
});

const evento = (i: number, headers?: Record<string, string>): OutboxEvent => ({
  subject: `inventario.bodega.movimiento.registrado.${i}`,
  envelope: {
    id: `00000000-0000-4000-8000-00000000000${i}`,
    eventType: 'MovimientoRegistrado',
    subject: `inventario.bodega.movimiento.registrado.${i}`,
    eventTime: '2026-11-30T07:00:00.000',
    dataVersion: '1.0',
    data: { operacionId: 70 + i },
  } as OutboxEvent['envelope'],
  ...(headers ? { headers } : {}),
});

const operacion = (f: Partial<FilaOperacion>): FilaOperacion => ({
  tipo: 'SALIDA',
  usuario: 'ana',
  principal_id: null,
  metodo_auth: null,
  token_id: null,
  comentario: null,
  clave_idempotencia: null,
  revierte_a: null,
  fecha: AT,
  ...f,
});

const pares = (n: number) => Array.from({ length: n }, (_, i) => [3 + i, 9001 + 2 * i] as [number, number]);
const rango = (n: number) => Array.from({ length: n }, (_, i) => i);

describe('a fixed statement is what knex builds for it', () => {
  it.each<[string, SqlFija, Knex.QueryBuilder]>([
    ...[0, 1, 2, 5].flatMap((n): [string, SqlFija, Knex.QueryBuilder][] => {
      const ids = rango(n).map((i) => 7 + i);
      const q = () => db('bodegas').whereIn('id', ids).orderBy('id');
      const columnas = ['id', 'capacidad', 'ocupacion', 'eliminando_desde'];
      return [
        [
          `warehouses held shared (${n})`,
          leerBodegas(ids, 'compartido'),
          q()
            .forShare()
            .select(...columnas),
        ],
        [
          `warehouses held exclusively (${n})`,
          leerBodegas(ids, 'exclusivo'),
          q()
            .forUpdate()
            .select(...columnas),
        ],
      ];
    }),
    ...[0, 1, 2, 4].map((n): [string, SqlFija, Knex.QueryBuilder] => [
      `levels locked (${n})`,
      leerNiveles(pares(n)),
      db('existencias').whereIn(['bodega_id', 'producto_id'], pares(n)).orderBy('id').forUpdate(),
    ]),
    ...[0, 1, 3].map((n): [string, SqlFija, Knex.QueryBuilder] => [
      `levels read again for their holds (${n})`,
      nivelesConReservas(rango(n).map((i) => 41 + i)),
      db('existencias')
        .whereIn(
          'id',
          rango(n).map((i) => 41 + i),
        )
        .andWhere('reservada', '>', 0)
        .orderBy('id')
        .forUpdate()
        .select('bodega_id', 'producto_id', 'reservada'),
    ]),
    ...[
      operacion({}),
      operacion({
        tipo: 'TRANSFERENCIA',
        principal_id: 5,
        metodo_auth: 'TOKEN',
        token_id: 9,
        comentario: 'a otra',
        clave_idempotencia: 'k-1',
      }),
      operacion({ tipo: 'REVERSO', revierte_a: 33, comentario: 'deshacer' }),
    ].map((f, i): [string, SqlFija, Knex.QueryBuilder] => [
      `an operation's row (${i})`,
      insertarOperacion(f),
      db('operaciones').insert(f),
    ]),
    ...[
      [movimiento(0, null)],
      [movimiento(0, 'uno'), movimiento(1, 'uno')],
      rango(5).map((i) => movimiento(i, null)),
      // Past the counts whose text is kept: built each time, the same text.
      rango(20).map((i) => movimiento(i, 'salida')),
    ].map((filas): [string, SqlFija, Knex.QueryBuilder] => [
      `an operation's lines (${filas.length})`,
      insertarMovimientos(filas),
      db('movimientos').insert(filas),
    ]),
    ...[
      { cantidad: 9, umbral_minimo: null, version: 5 },
      { cantidad: 0, umbral_minimo: 3, version: 12 },
    ].flatMap((n): [string, SqlFija, Knex.QueryBuilder][] => [
      [
        `a level updated (umbral ${n.umbral_minimo})`,
        actualizarNivel(41, n, AT),
        db('existencias').where({ id: 41 }).update({
          cantidad: n.cantidad,
          umbral_minimo: n.umbral_minimo,
          version: n.version,
          fecha_actualizacion: AT,
        }),
      ],
      [
        `a level created (umbral ${n.umbral_minimo})`,
        insertarNivel(3, 9001, n, AT),
        db('existencias').insert({
          bodega_id: 3,
          producto_id: 9001,
          cantidad: n.cantidad,
          umbral_minimo: n.umbral_minimo,
          version: n.version,
          fecha_creacion: AT,
          fecha_actualizacion: AT,
        }),
      ],
    ]),
    ...[5, -5].map((delta): [string, SqlFija, Knex.QueryBuilder] => [
      `a warehouse's occupancy moved by ${delta}`,
      moverOcupacionBodega(7, delta),
      db('bodegas').where({ id: 7 }).increment('ocupacion', delta),
    ]),
    [
      "units out added to a warehouse's stripe",
      sumarATramo(7, 11, 3),
      db('bodega_salidas').where({ bodega_id: 7, tramo: 11 }).increment('unidades', 3),
    ],
    ...[[evento(1)], [evento(1, { traceparent: '00-abc-def-01' }), evento(2, {}), evento(3)]].map(
      (eventos): [string, SqlFija, Knex.QueryBuilder] => [
        `the outbox's rows (${eventos.length})`,
        insertarEventos(eventos)!,
        // The same INSERT platform's outboxInsert builds in a write's transaction.
        outboxInsert(db as unknown as Knex.Transaction, eventos)!,
      ],
    ),
    [
      "a reservation's levels",
      nivelesDeReserva(12),
      db('reserva_lineas').where({ reserva_id: 12 }).select('bodega_id', 'producto_id'),
    ],
    [
      "a reservation's lines locked",
      leerLineasDeReserva(12),
      db('reserva_lineas').where({ reserva_id: 12 }).orderBy('id').forUpdate(),
    ],
    [
      "a reservation's line consumed",
      consumirLinea(40, 1, 3),
      db('reserva_lineas').where({ id: 40 }).update({ retenida: 1, consumida: 3 }),
    ],
    [
      "a level's holds lowered",
      bajarReservada(3, 9001, 2),
      db('existencias').where({ bodega_id: 3, producto_id: 9001 }).decrement('reservada', 2),
    ],
    ...[[consumo(0)], rango(3).map(consumo)].map((filas): [string, SqlFija, Knex.QueryBuilder] => [
      `a reservation's consumptions (${filas.length})`,
      insertarConsumos(filas),
      db('reserva_consumos').insert(filas),
    ]),
    [
      "a reservation's terminal state",
      terminarFila(12, 'CONSUMIDA', INSTANTE),
      db('reservas')
        .where({ id: 12 })
        .update({ estado: 'CONSUMIDA', version: db.raw('version + 1'), fecha_actualizacion: INSTANTE }),
    ],
    [
      "a reservation's terminal record",
      insertarTerminal(12, 'CONSUMIDA', INSTANTE),
      db('reserva_terminales').insert({ reserva_id: 12, estado: 'CONSUMIDA', fecha: INSTANTE }),
    ],
    [
      "a reservation's next version",
      nuevaVersionDeReserva(12, INSTANTE),
      db('reservas')
        .where({ id: 12 })
        .update({ version: db.raw('version + 1'), fecha_actualizacion: INSTANTE }),
    ],
  ])('%s', (_, fija, builder) => {
    expect(fija).toEqual(knex(builder));
  });

  it('has no outbox statement without events, as outboxInsert', () => {
    expect(insertarEventos([])).toBeUndefined();
    expect(outboxInsert(db as unknown as Knex.Transaction, [])).toBeUndefined();
  });
});
