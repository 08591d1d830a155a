import type { Knex, OutboxEvent } from '@inventario/platform';

/**
 * The statements every stock write sends (a movement, a transfer, a reservation's consumption), as
 * fixed SQL text per shape with their bindings, instead of built by knex's query builder on every
 * call (issue 23: building them cost ~0.19 ms of bodega-svc's ~1.2-2 ms per exit). Each text is,
 * character for character, what knex builds for the same statement, bindings in the same order:
 * sentencias-fijas.unit.test.ts builds each with knex for several argument sets and compares, so a
 * text cannot drift from what knex would send. Values are always bindings, never pasted in.
 * Everything cold (migrations, lists, admin paths) keeps its query builder.
 */
export interface SqlFija {
  sql: string;
  bindings: Knex.RawBinding[];
}

/** Counts whose text is kept once built; a larger one (a write-out of hundreds of lines) is built each time. */
const GUARDADAS = 16;

/** One text per count of rows or pairs (`n`). */
function porCantidad(texto: (n: number) => string): (n: number) => string {
  const hechos: string[] = [];
  return (n) => (n > GUARDADAS ? texto(n) : (hechos[n] ??= texto(n)));
}

const marcas = (n: number, grupo = '?') => Array.from({ length: n }, () => grupo).join(', ');

/** `columnas in (...)` of `n` values or groups; of none, knex's condition that matches nothing (`1 = ?`, 0). */
const enLista = (columnas: string, n: number, grupo = '?') =>
  n === 0 ? '1 = ?' : `${columnas} in (${marcas(n, grupo)})`;

/** enLista's bindings. */
const deLista = (valores: readonly number[]): number[] => (valores.length === 0 ? [0] : [...valores]);

const BODEGAS = 'select `id`, `capacidad`, `ocupacion`, `eliminando_desde` from `bodegas` where ';

/** A warehouse locking read in id order, shared ('lock in share mode') or exclusive ('for update'). */
const LEER_BODEGAS = {
  compartido: porCantidad((n) => `${BODEGAS}${enLista('`id`', n)} order by \`id\` asc lock in share mode`),
  exclusivo: porCantidad((n) => `${BODEGAS}${enLista('`id`', n)} order by \`id\` asc for update`),
};

export function leerBodegas(ids: readonly number[], bloqueo: 'compartido' | 'exclusivo'): SqlFija {
  return { sql: LEER_BODEGAS[bloqueo](ids.length), bindings: deLista(ids) };
}

const LEER_NIVELES = porCantidad(
  (n) =>
    `select * from \`existencias\` where ${enLista('(`bodega_id`, `producto_id`)', n, '(?, ?)')} ` +
    'order by `id` asc for update',
);

/** The levels of these (warehouse, product) pairs, whole rows, locked in id order. */
export function leerNiveles(pares: readonly (readonly [number, number])[]): SqlFija {
  return { sql: LEER_NIVELES(pares.length), bindings: deLista(pares.flat()) };
}

const NIVELES_CON_RESERVAS = porCantidad(
  (n) =>
    'select `bodega_id`, `producto_id`, `reservada` from `existencias` where ' +
    `${enLista('`id`', n)} and \`reservada\` > ? order by \`id\` asc for update`,
);

/** Of these (locked) levels, by row id, those holding units for reservations, read again under their lock. */
export function nivelesConReservas(ids: readonly number[]): SqlFija {
  return { sql: NIVELES_CON_RESERVAS(ids.length), bindings: [...deLista(ids), 0] };
}

/** An operation's row as the stock writes insert it (existencia-escritura.ts, filaDeOperacion). */
export interface FilaOperacion {
  tipo: string;
  usuario: string;
  principal_id: number | null;
  metodo_auth: string | null;
  token_id: number | null;
  comentario: string | null;
  clave_idempotencia: string | null;
  revierte_a: number | null;
  fecha: Date;
}

const INSERTAR_OPERACION =
  'insert into `operaciones` (`clave_idempotencia`, `comentario`, `fecha`, `metodo_auth`, `principal_id`, ' +
  '`revierte_a`, `tipo`, `token_id`, `usuario`) values (?, ?, ?, ?, ?, ?, ?, ?, ?)';

export function insertarOperacion(f: FilaOperacion): SqlFija {
  return {
    sql: INSERTAR_OPERACION,
    bindings: [
      f.clave_idempotencia,
      f.comentario,
      f.fecha,
      f.metodo_auth,
      f.principal_id,
      f.revierte_a,
      f.tipo,
      f.token_id,
      f.usuario,
    ],
  };
}

/** A ledger line as written (its columns, by name). */
export interface FilaMovimiento {
  operacion_id: number;
  bodega_id: number;
  producto_id: number;
  tipo: string;
  motivo: string;
  cantidad: number;
  cantidad_anterior: number;
  cantidad_posterior: number;
  version: number;
  usuario: string;
  comentario: string | null;
  fecha: Date;
}

const INSERTAR_MOVIMIENTOS = porCantidad(
  (n) =>
    'insert into `movimientos` (`bodega_id`, `cantidad`, `cantidad_anterior`, `cantidad_posterior`, `comentario`, ' +
    '`fecha`, `motivo`, `operacion_id`, `producto_id`, `tipo`, `usuario`, `version`) values ' +
    marcas(n, '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)'),
);

/** One INSERT of an operation's lines; the insert's id is the first line's. */
export function insertarMovimientos(filas: readonly FilaMovimiento[]): SqlFija {
  return {
    sql: INSERTAR_MOVIMIENTOS(filas.length),
    bindings: filas.flatMap((f) => [
      f.bodega_id,
      f.cantidad,
      f.cantidad_anterior,
      f.cantidad_posterior,
      f.comentario,
      f.fecha,
      f.motivo,
      f.operacion_id,
      f.producto_id,
      f.tipo,
      f.usuario,
      f.version,
    ]),
  };
}

/** A level as the write leaves it. */
export interface NivelEscrito {
  cantidad: number;
  umbral_minimo: number | null;
  version: number;
}

const ACTUALIZAR_NIVEL =
  'update `existencias` set `cantidad` = ?, `umbral_minimo` = ?, `version` = ?, `fecha_actualizacion` = ? ' +
  'where `id` = ?';

export function actualizarNivel(id: number, n: NivelEscrito, fecha: Date): SqlFija {
  return { sql: ACTUALIZAR_NIVEL, bindings: [n.cantidad, n.umbral_minimo, n.version, fecha, id] };
}

const INSERTAR_NIVEL =
  'insert into `existencias` (`bodega_id`, `cantidad`, `fecha_actualizacion`, `fecha_creacion`, `producto_id`, ' +
  '`umbral_minimo`, `version`) values (?, ?, ?, ?, ?, ?, ?)';

export function insertarNivel(bodegaId: number, productoId: number, n: NivelEscrito, fecha: Date): SqlFija {
  return {
    sql: INSERTAR_NIVEL,
    bindings: [bodegaId, n.cantidad, fecha, fecha, productoId, n.umbral_minimo, n.version],
  };
}

/** A change of a column by `delta` (knex's increment: `+ ?` or `- ?` with the magnitude). */
const signo = (delta: number) => (delta < 0 ? '-' : '+');

const MOVER_OCUPACION = {
  '+': 'update `bodegas` set `ocupacion` = `ocupacion` + ? where `id` = ?',
  '-': 'update `bodegas` set `ocupacion` = `ocupacion` - ? where `id` = ?',
};

/** The occupancy of a warehouse held exclusively, moved by `delta` units. */
export function moverOcupacionBodega(bodegaId: number, delta: number): SqlFija {
  return { sql: MOVER_OCUPACION[signo(delta)], bindings: [Math.abs(delta), bodegaId] };
}

const SUMAR_TRAMO = 'update `bodega_salidas` set `unidades` = `unidades` + ? where `bodega_id` = ? and `tramo` = ?';

/** Units taken out of a warehouse held shared, added to one of its stripes (ocupacion.ts). */
export function sumarATramo(bodegaId: number, tramo: number, unidades: number): SqlFija {
  return { sql: SUMAR_TRAMO, bindings: [unidades, bodegaId, tramo] };
}

const INSERTAR_OUTBOX = porCantidad(
  (n) => 'insert into `outbox` (`event_id`, `headers`, `payload`, `subject`) values ' + marcas(n, '(?, ?, ?, ?)'),
);

/** platform's outboxInsert (its rows, in the array's order), as fixed text; undefined when there is no event. */
export function insertarEventos(events: readonly OutboxEvent[]): SqlFija | undefined {
  if (events.length === 0) return undefined;
  return {
    sql: INSERTAR_OUTBOX(events.length),
    bindings: events.flatMap((e) => [
      e.envelope.id,
      e.headers && Object.keys(e.headers).length > 0 ? JSON.stringify(e.headers) : null,
      JSON.stringify(e.envelope),
      e.subject,
    ]),
  };
}

// --- A reservation's consumption (reserva-consumo.ts) ---

const NIVELES_DE_RESERVA = 'select `bodega_id`, `producto_id` from `reserva_lineas` where `reserva_id` = ?';

/** Which levels a reservation has (a plain read: they never change after its creation). */
export function nivelesDeReserva(reservaId: number): SqlFija {
  return { sql: NIVELES_DE_RESERVA, bindings: [reservaId] };
}

const LEER_LINEAS_DE_RESERVA = 'select * from `reserva_lineas` where `reserva_id` = ? order by `id` asc for update';

export function leerLineasDeReserva(reservaId: number): SqlFija {
  return { sql: LEER_LINEAS_DE_RESERVA, bindings: [reservaId] };
}

const CONSUMIR_LINEA = 'update `reserva_lineas` set `retenida` = ?, `consumida` = ? where `id` = ?';

export function consumirLinea(lineaId: number, retenida: number, consumida: number): SqlFija {
  return { sql: CONSUMIR_LINEA, bindings: [retenida, consumida, lineaId] };
}

const BAJAR_RESERVADA =
  'update `existencias` set `reservada` = `reservada` - ? where `bodega_id` = ? and `producto_id` = ?';

/** A level's holds lowered by `unidades` (> 0). */
export function bajarReservada(bodegaId: number, productoId: number, unidades: number): SqlFija {
  return { sql: BAJAR_RESERVADA, bindings: [unidades, bodegaId, productoId] };
}

/** A consumption of a reservation's line, dated at the write's instant (text, to the microsecond). */
export interface FilaConsumo {
  reserva_id: number;
  linea_id: number;
  operacion_id: number;
  cantidad: number;
  fecha: string;
}

const INSERTAR_CONSUMOS = porCantidad(
  (n) =>
    'insert into `reserva_consumos` (`cantidad`, `fecha`, `linea_id`, `operacion_id`, `reserva_id`) values ' +
    marcas(n, '(?, ?, ?, ?, ?)'),
);

export function insertarConsumos(filas: readonly FilaConsumo[]): SqlFija {
  return {
    sql: INSERTAR_CONSUMOS(filas.length),
    bindings: filas.flatMap((f) => [f.cantidad, f.fecha, f.linea_id, f.operacion_id, f.reserva_id]),
  };
}

const TERMINAR_RESERVA =
  'update `reservas` set `estado` = ?, `version` = version + 1, `fecha_actualizacion` = ? where `id` = ?';

/** The reservation's terminal state, at `instante` (the write's, text to the microsecond). */
export function terminarFila(reservaId: number, estado: string, instante: string): SqlFija {
  return { sql: TERMINAR_RESERVA, bindings: [estado, instante, reservaId] };
}

const INSERTAR_TERMINAL = 'insert into `reserva_terminales` (`estado`, `fecha`, `reserva_id`) values (?, ?, ?)';

export function insertarTerminal(reservaId: number, estado: string, instante: string): SqlFija {
  return { sql: INSERTAR_TERMINAL, bindings: [estado, instante, reservaId] };
}

const NUEVA_VERSION_DE_RESERVA =
  'update `reservas` set `version` = version + 1, `fecha_actualizacion` = ? where `id` = ?';

/** A reservation still ACTIVA after a partial consumption: its version + 1, at `instante`. */
export function nuevaVersionDeReserva(reservaId: number, instante: string): SqlFija {
  return { sql: NUEVA_VERSION_DE_RESERVA, bindings: [instante, reservaId] };
}
