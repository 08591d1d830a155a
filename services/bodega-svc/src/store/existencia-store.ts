import {
  enqueueEvents,
  FailedPreconditionError,
  isDuplicateEntry,
  jsonResultCodec,
  NotFoundError,
  nowToSecond,
  VersionMismatchError,
  withDbErrors,
  writeTransaction,
  type CallContext,
  type Knex,
  type OutboxEvent,
} from '@inventario/platform';
import type { AlertaSobre, TipoMovimiento, TipoOperacion } from '@inventario/contract';
import {
  cambiosDeReverso,
  clave,
  planOperation,
  planUmbral,
  esBajo,
  TIPO_LINEA,
  type Asignacion,
  type Cambio,
  type Existencia,
  type LineaPlaneada,
  type Movimiento,
  type MovimientoSolicitado,
  type NivelActual,
  type Operacion,
  type Plan,
  type Transferencia,
} from '../domain/existencia';
import { bodegaEliminandose } from '../domain/bodega';
import { SIN_UBICAR } from './migrations';
import {
  bloquearBodegas,
  bloqueosDe,
  entrantesDe,
  cambioDeOcupacion,
  lecturasDeBodegas,
  plegarSiHaceFalta,
  type Bloqueo,
  type BodegaBloqueada,
} from './ocupacion';
import { TRAMOS, verificarPorTramos } from './verificacion-por-tramos';
import { RELOJ_BD, respetarReservas, type RelojReservas } from './reservas-en-niveles';
import { sincronizarAlertasDisponible } from './alertas-disponible';
import { enviarJuntas, filasDe, idInsertado, type Sentencia } from './sentencias';
import {
  actualizarNivel,
  insertarEventos,
  insertarMovimientos,
  insertarNivel,
  insertarOperacion,
  leerNiveles,
  type SqlFija,
} from './sentencias-fijas';
import type { ExistenciaEvents } from '../events/existencia-events';
import type { DiferenciaReserva } from './reserva-store';

/**
 * docs/contract.md §10. Every command is one transaction locking, in this
 * order, the deleted-product records (shared), its warehouses and its levels
 * (ascending ids). A warehouse is held shared by a write that only takes
 * units out of it (exits do not wait for each other; ocupacion.ts) and
 * exclusively by anything else, which keeps its room exact; the level locks
 * keep level versions exact under any concurrency; deadlock victims are
 * retried by writeTransaction.
 */
export interface ExistenciaStore {
  /** Sets a level (ASIGNACION). `expectedVersion` 0 asks that there be no level. */
  asignar(
    asignacion: Asignacion,
    caller: CallContext,
    opts: CommandOptions,
  ): Promise<{ existencia: Existencia; operacion: Operacion }>;
  /**
   * Sets (a number) or removes (null) a level's threshold: no line, version + 1; NotFoundError (SIN_EXISTENCIAS) when
   * there is no level.
   */
  cambiarUmbral(
    cambio: { bodegaId: number; productoId: number; umbralMinimo: number | null; alertaSobre?: AlertaSobre },
    caller: CallContext,
    opts: CommandOptions,
  ): Promise<Existencia>;
  /** Writes a level out (RETIRO) and removes it; NotFoundError (reason SIN_EXISTENCIAS) when there is none. */
  retirar(
    bodegaId: number,
    productoId: number,
    caller: CallContext,
    opts: CommandOptions,
  ): Promise<{ cantidadRetirada: number; operacion: Operacion }>;
  registrarMovimiento(movimiento: MovimientoSolicitado, caller: CallContext, opts: CommandOptions): Promise<Operacion>;
  transferir(transferencia: Transferencia, caller: CallContext, opts: CommandOptions): Promise<Operacion>;
  revertir(
    operacionId: number,
    comentario: string | null,
    caller: CallContext,
    opts: CommandOptions,
  ): Promise<Operacion>;
  /** Idempotent; from then on stock writes for the product are refused. */
  retirarProductoEliminado(productoId: number): Promise<void>;
  /**
   * Inside a forced delete's transaction, with the warehouse row locked and
   * marked: writes out at most `limite` of its levels (the lowest ids), as one
   * operation of set-based statements.
   */
  retirarDeBodega(
    trx: Knex.Transaction,
    bodegaId: number,
    caller: CallContext,
    at: Date,
    limite: number,
  ): Promise<{ niveles: number; unidades: number }>;
  /** Idempotent: producto-svc has this product (ProductoCreado, confirmed). */
  registrarProductoConocido(productoId: number): Promise<void>;
  /** Whether the product is recorded as known already (its initial stock or a stock command recorded it). */
  esProductoConocido(productoId: number): Promise<boolean>;
  /**
   * The product's STOCK_INICIAL row, by a plain read (committed rows only; a committed row is final): undefined
   * while there is none, `conUnidades` when it recorded units. Only a shortcut: registrarStockInicial decides.
   */
  leerStockInicial(productoId: number): Promise<{ conUnidades: boolean } | undefined>;
  /**
   * In a reservation's transaction (reserva-store.ts), its holds on these levels already lowered:
   * SALIDA lines (motivo VENTA) of one operation. It never checks disponible: the hold is the permission.
   */
  salidaDeReserva(
    trx: Knex.Transaction,
    at: Date,
    caller: CallContext,
    lineas: { bodegaId: number; productoId: number; cantidad: number }[],
    comentario: string | null,
    bloqueados?: BloqueadosPorReserva,
  ): Promise<Operacion>;
  /** Call inside a transaction that locked the warehouse. */
  tieneExistencias(trx: Knex.Transaction, bodegaId: number): Promise<boolean>;
  /** The products of at most `limite` of the warehouse's levels, lowest first; a plain read, outside any lock. */
  productosEnBodega(bodegaId: number, limite: number): Promise<number[]>;

  get(bodegaId: number, productoId: number): Promise<Existencia>;
  list(query: ExistenciaQuery): Promise<{ existencias: Existencia[]; hasMore: boolean }>;
  /** A page of the levels of a batch of parents, at most `perParent` of each (ExistenciasPorLoteQuery). */
  listPorLote(query: ExistenciasPorLoteQuery): Promise<{ existencias: Existencia[]; hasMore: boolean }>;
  getOperacion(id: number): Promise<Operacion>;
  listMovimientos(query: MovimientoQuery): Promise<{ movimientos: Movimiento[]; hasMore: boolean }>;
  /** The stock against its ledger, in bounded slices of one snapshot; `signal` stops it between slices. */
  verificar(signal?: AbortSignal): Promise<Verificacion>;

  // --- One answer (docs/contract.md §10.6): a product's figure is its ledger total ---
  /** Per product asked, in that order: the sum of its levels, the unlocated one included. */
  totalesDeProductos(productoIds: readonly number[]): Promise<TotalDeProducto[]>;
  /**
   * Records a product's units from before the ledger: once per product and origin (stock_inicial's
   * key), as ENTRADA lines into `bodegaId` as far as it has room and the rest unlocated. For
   * MIGRACION `cantidad` is the old column and only what the levels do not explain is recorded.
   * Null when nothing was recorded now or before; a deleted product records nothing. `total` (the
   * product's ledger total right after, read under the recording's locks) only when this call recorded.
   */
  registrarStockInicial(
    inicial: StockInicial,
    caller: CallContext,
    opts: CommandOptions & StockInicialOptions,
  ): Promise<StockInicialRegistrado | null>;
  /** A count of the product as a whole: AJUSTE lines so its total becomes `cantidad` (contarProducto's rule). */
  contarProducto(
    conteo: ConteoDeProducto,
    caller: CallContext,
    opts: CommandOptions,
  ): Promise<{ operacion: Operacion | null; total: number }>;
}

export interface StockInicialOptions {
  /**
   * Only as the product's first units (its ProductoCreado, recorded late): a product with a line already (a count,
   * a movement) has said how many there are, so its row is recorded with no operation, and nothing is added later.
   */
  soloSiNuevo?: boolean;
}

export interface StockInicialRegistrado {
  operacion: Operacion;
  total?: number;
}

export interface TotalDeProducto {
  productoId: number;
  total: number;
  sinUbicar: number;
}

export interface StockInicial {
  productoId: number;
  bodegaId: number | null;
  cantidad: number;
  origen: 'STOCK_INICIAL' | 'MIGRACION';
}

export interface ConteoDeProducto {
  productoId: number;
  bodegaId: number | null;
  cantidad: number;
}

export interface CommandOptions {
  expectedVersion?: number;
  /** The level must exist (REST `If-Match: *`); with expectedVersion 0, a condition that never holds. */
  requiereNivel?: boolean;
  /** An assignment: an existing level is set only under expectedVersion (PRECONDITION_REQUIRED). */
  versionRequerida?: boolean;
  claveIdempotencia?: string;
}

/** A warehouse as the request named it: `campo` is the request's field (`bodegaId`, `origenId`, `destinoId`). */
export interface BodegaNombrada {
  campo: string;
  id: number;
}

/** What the store asks producto-svc about a product id it has not seen (producto-lookup.ts). */
export interface ProductoCatalogo {
  /** True when producto-svc has the product now; UnavailableError when it cannot tell. */
  isLive(productoId: number): Promise<boolean>;
}

export interface ExistenciaQuery {
  pageSize: number;
  after: { bodegaId: number; productoId: number } | null;
  bodegaIds: number[];
  productoIds: number[];
}

/**
 * ListExistenciasPorLote: the parents are warehouses (their levels by product) or products (their
 * levels by warehouse, the unlocated one left out). Of each parent the levels whose other id is
 * greater than `afterId`, at most `perParent` (0: all); the page follows (warehouse, product) order.
 */
export interface ExistenciasPorLoteQuery {
  pageSize: number;
  after: { bodegaId: number; productoId: number } | null;
  parents: { bodegaIds: number[] } | { productoIds: number[] };
  perParent: number;
  afterId: number | null;
  /** Only levels of these warehouses (the caller's scope); undefined: any. */
  visibles: number[] | undefined;
}

export interface MovimientoQuery {
  pageSize: number;
  /** Lines are listed newest first. */
  beforeId: number | null;
  bodegaId?: number;
  /** The warehouses a scoped principal may see (docs/contract.md §12.9): lines of others are left out in SQL. */
  bodegaIds?: number[];
  productoId?: number;
  tipo?: TipoMovimiento;
  desde?: Date;
  hasta?: Date;
  operacionId?: number;
}

export interface Diferencia {
  tipo: 'NIVEL' | 'OCUPACION';
  bodegaId: number;
  productoId: number;
  registrado: number;
  calculado: number;
}

export interface Verificacion {
  consistente: boolean;
  diferencias: Diferencia[];
  nivelesVerificados: number;
  bodegasVerificadas: number;
  /** The reservations' checks (reserva-store.ts), when the verification ran them. */
  diferenciasReservas?: DiferenciaReserva[];
}

export interface ExistenciaStoreDeps {
  events: ExistenciaEvents;
  productos: ProductoCatalogo;
  onCommitted?: () => void;
  idempotencyTtlSeconds: number;
  /**
   * The pool opens every connection at REPEATABLE READ (createDb's transactionIsolation), so a stock
   * command starts with BEGIN alone; without it each sets its level first (one more round trip).
   */
  sesionRepeatableRead?: boolean;
  /**
   * The pool takes several statements in one query (createDb's multipleStatements): a write sends its
   * last statements in one round trip (issue 23). Without it, one by one.
   */
  sentenciasJuntas?: boolean;

  /** The holds every write respects (issue 24); absent: levels hold no reservations (tests of the ledger alone). */
  reservas?: RelojReservas;
}

/** Per write-out operation, so its event stays far below NATS's message limit. */
export const LINEAS_POR_OPERACION = 500;
export { MAX_DIFERENCIAS } from './verificacion-por-tramos';

/** A level's row as read from `existencias` (alertas-disponible.ts reads the same columns). */
export interface NivelRow {
  id: number;
  bodega_id: number;
  producto_id: number;
  cantidad: number;
  umbral_minimo: number | null;
  version: number;
  fecha_creacion: Date;
  fecha_actualizacion: Date;
  reservada?: number;
  /** Reads only: what unexpired holds keep (reservadaVigenteSql). */
  reservada_vigente?: number | string;
  /** Added (issue 24): absent before migration 0013 (tests of older schemas). */
  alerta_sobre?: AlertaSobre;
  bajo_disponible?: number;
}

const nivelActual = (r: NivelRow): NivelActual => ({
  bodegaId: r.bodega_id,
  productoId: r.producto_id,
  existe: true,
  cantidad: r.cantidad,
  umbralMinimo: r.umbral_minimo,
  version: r.version,
  alertaSobre: r.alerta_sobre ?? 'CANTIDAD',
});

interface MovimientoRow {
  id: number | string;
  operacion_id: number | string;
  bodega_id: number;
  producto_id: number;
  tipo: TipoMovimiento;
  motivo: Movimiento['motivo'];
  cantidad: number;
  cantidad_anterior: number;
  cantidad_posterior: number;
  version: number;
  usuario: string;
  comentario: string | null;
  fecha: Date;
}

interface OperacionRow {
  id: number | string;
  tipo: TipoOperacion;
  usuario: string;
  comentario: string | null;
  revierte_a: number | string | null;
  fecha: Date;
}

function toExistencia(row: NivelRow): Existencia {
  return {
    bodegaId: row.bodega_id,
    productoId: row.producto_id,
    cantidad: row.cantidad,
    umbralMinimo: row.umbral_minimo,
    version: row.version,
    fechaCreacion: row.fecha_creacion,
    fechaActualizacion: row.fecha_actualizacion,
    reservada: Number(row.reservada_vigente ?? row.reservada ?? 0),
    alertaSobre: row.alerta_sobre ?? 'CANTIDAD',
  };
}

/** A level's units held by unexpired holds at `reloj` (exact between sweeps: a due hold never counts). */
const reservadaVigenteSql = (reloj: string) =>
  `IF(existencias.reservada = 0, 0, (SELECT COALESCE(SUM(l.retenida), 0) FROM reserva_lineas l JOIN reservas r ` +
  `ON r.id = l.reserva_id
     WHERE l.bodega_id = existencias.bodega_id AND l.producto_id = existencias.producto_id AND l.retenida > 0 AND ` +
  `r.expira_en > ${reloj})) AS reservada_vigente`;

function toMovimiento(row: MovimientoRow): Movimiento {
  return {
    id: Number(row.id),
    operacionId: Number(row.operacion_id),
    bodegaId: row.bodega_id,
    productoId: row.producto_id,
    tipo: row.tipo,
    motivo: row.motivo,
    cantidad: row.cantidad,
    cantidadAnterior: row.cantidad_anterior,
    cantidadPosterior: row.cantidad_posterior,
    version: row.version,
    usuario: row.usuario,
    comentario: row.comentario,
    fecha: row.fecha,
  };
}

/** A line as written (toMovimiento of its row, without reading it back). */
function lineaEscrita(
  id: number,
  operacionId: number,
  l: LineaPlaneada,
  usuario: string,
  comentario: string | null,
  fecha: Date,
): Movimiento {
  return {
    id,
    operacionId,
    bodegaId: l.bodegaId,
    productoId: l.productoId,
    tipo: l.tipo,
    motivo: l.motivo,
    cantidad: l.cantidad,
    cantidadAnterior: l.cantidadAnterior,
    cantidadPosterior: l.cantidadPosterior,
    version: l.version,
    usuario,
    comentario,
    fecha,
  };
}

function bodegaNoExiste(id: number): NotFoundError {
  return new NotFoundError(`No existe la bodega con id ${id}`);
}

const noExisteBodega = ({ campo, id }: BodegaNombrada) => ({ campo, mensaje: `no existe la bodega ${id}` });

/** The reason tells it apart from a missing warehouse; named on `productoId`, the level's field. */
function sinExistencias(bodegaId: number, productoId: number): NotFoundError {
  return NotFoundError.campos(
    [{ campo: 'productoId', mensaje: `la bodega ${bodegaId} no tiene existencias del producto ${productoId}` }],
    'SIN_EXISTENCIAS',
  );
}

/**
 * An existing level is set only under its version, so the write cannot overwrite a movement it did not see (issue 21,
 * item 11).
 */
function versionRequerida(bodegaId: number, productoId: number): FailedPreconditionError {
  return new FailedPreconditionError(
    `la bodega ${bodegaId} ya tiene existencias del producto ${productoId}: fijarlas requiere la versión de esa ` +
      `existencia (léala en ella), p. ej. 3`,
    { reason: 'PRECONDITION_REQUIRED' },
  );
}

function productoEliminado(productoId: number): FailedPreconditionError {
  return new FailedPreconditionError(`el producto ${productoId} fue eliminado; su stock ya se dio de baja`, {
    reason: 'PRODUCTO_ELIMINADO',
    datos: { productoId },
  });
}

/** The unlocated level's "warehouse" for the planner: no capacity to run out of, no row to lock. */
const sinUbicar = (): BodegaBloqueada => ({
  id: SIN_UBICAR,
  capacidad: Number.MAX_SAFE_INTEGER,
  ocupacion: 0,
  bloqueo: 'exclusivo',
});

/**
 * The warehouses (shared) and the levels (whole rows, FOR UPDATE) a reservation's consumption locked before its
 * exit, `reservada` as it is after the consumption lowered its holds.
 */
export interface BloqueadosPorReserva {
  bodegas: Map<number, BodegaBloqueada>;
  niveles: NivelRow[];
}

/** A product named by a command: known here, and its deletion record when it has one. */
interface FilaConocida {
  conocido: number;
  eliminado: number | null;
}

/** Rolls back an initial recording for a product deleted meanwhile. */
class ProductoYaEliminado extends Error {}

/** Internal: the write names a product this service has not seen yet (conProductosConocidos). */
class ProductosDesconocidos extends Error {
  constructor() {
    super('the write names a product this service has not seen yet');
    this.name = 'ProductosDesconocidos';
  }
}

const RESULTS = jsonResultCodec(['fecha', 'fechaCreacion', 'fechaActualizacion']);

/**
 * What a store keeps from one call to the next, made by its factory and passed to the writes that use it: whether
 * the server hands a multi-row INSERT consecutive ids (idsConsecutivos), asked once per store.
 */
interface EstadoExistencias {
  consecutivos?: Promise<boolean>;
}

function write<T>(
  db: Knex,
  deps: ExistenciaStoreDeps,
  caller: CallContext,
  work: (trx: Knex.Transaction, at: Date) => Promise<T>,
): Promise<T> {
  return writeTransaction(db, (trx) => work(trx, nowToSecond()), {
    onCommitted: deps.onCommitted,
    idempotency: { key: caller.idempotency, codec: RESULTS, ttlSeconds: deps.idempotencyTtlSeconds },
    signal: caller.signal,
    // requireProductosVivos's shared lock on a missing record is a gap lock only under REPEATABLE READ
    // (the session's own level when sesionRepeatableRead).
    ...(deps.sesionRepeatableRead ? {} : { isolationLevel: 'repeatable read' as const }),
  });
}

/** enviarJuntas (sentencias.ts): one query when the pool takes several statements in one (deps.sentenciasJuntas). */
const enviar = (trx: Knex.Transaction, deps: ExistenciaStoreDeps, sentencias: readonly Sentencia[]) =>
  enviarJuntas(trx, sentencias, deps.sentenciasJuntas === true);

/**
 * Whether a multi-row INSERT's ids are its first id + 0, 1, 2...: InnoDB gives a "simple insert"
 * (rows known in advance) one consecutive block in auto-increment lock modes 0 and 1, with an
 * increment of 1. Asked once, on the asking write's own connection (another from the pool could
 * wait for one that writes hold); mode 2 (interleaved, Galera's) or another increment: read back.
 */
function idsConsecutivos(trx: Knex.Transaction, estado: EstadoExistencias): Promise<boolean> {
  estado.consecutivos ??= trx
    .raw('SELECT @@innodb_autoinc_lock_mode AS modo, @@auto_increment_increment AS paso')
    .then(
      ([rows]: [{ modo: number | string; paso: number | string }[]]) =>
        Number(rows[0]?.modo) <= 1 && Number(rows[0]?.paso) === 1,
    )
    .catch(() => {
      estado.consecutivos = undefined;
      return false;
    });
  return estado.consecutivos;
}

/**
 * The shared (gap) lock makes a concurrent ProductoEliminado wait for this write, or this write wait and see its
 * record.
 */
async function requireProductosVivos(trx: Knex.Transaction, productoIds: number[]): Promise<void> {
  const rows = await trx('productos_eliminados')
    .whereIn('producto_id', productoIds)
    .forShare()
    .select<{ producto_id: number }[]>('producto_id');
  if (rows.length > 0) throw productoEliminado(rows[0]!.producto_id);
}

/** A warehouse being deleted takes no stock write (BODEGA_ELIMINANDOSE), but its own write-out's (`eliminandose`). */
async function lockBodegas(
  trx: Knex.Transaction,
  bloqueos: Map<number, Bloqueo>,
  { eliminandose = false, entrantes }: { eliminandose?: boolean; entrantes?: ReadonlyMap<number, number> } = {},
): Promise<Map<number, BodegaBloqueada>> {
  return comprobarBodegas(bloqueos, await bloquearBodegas(trx, bloqueos, entrantes), eliminandose);
}

/** What lockBodegas requires of the warehouses it locked: all there, none being deleted. */
function comprobarBodegas(
  bloqueos: ReadonlyMap<number, Bloqueo>,
  out: Map<number, BodegaBloqueada>,
  eliminandose = false,
): Map<number, BodegaBloqueada> {
  for (const id of [...bloqueos.keys()].sort((a, b) => a - b)) {
    const b = out.get(id);
    if (!b) throw bodegaNoExiste(id);
    // Held shared is enough only for a command that takes units out there.
    if (bloqueos.get(id) === 'exclusivo' && b.bloqueo !== 'exclusivo')
      throw new Error(`warehouse ${id} is held shared; the write needs it exclusively`);
  }
  const marcada = [...out.values()].find((b) => b.eliminando);
  if (marcada && !eliminandose) throw bodegaEliminandose(marcada.id);
  return out;
}

/** lockBodegas, a missing warehouse the request named being a 404 naming its field, every missing one at once. */
async function lockBodegasNombradas(
  trx: Knex.Transaction,
  bloqueos: Map<number, Bloqueo>,
  nombradas?: readonly BodegaNombrada[],
  entrantes?: ReadonlyMap<number, number>,
  /** Their rows, when the caller's locking read already took them (bloquearJuntos). */
  leidas?: readonly BodegaBloqueada[],
): Promise<Map<number, BodegaBloqueada>> {
  try {
    return leidas
      ? comprobarBodegas(bloqueos, await plegarSiHaceFalta(trx, leidas, entrantes))
      : await lockBodegas(trx, bloqueos, { entrantes });
  } catch (err) {
    if (!(err instanceof NotFoundError) || !nombradas) throw err;
    const existentes = new Set(
      await trx('bodegas')
        .whereIn(
          'id',
          nombradas.map((n) => n.id),
        )
        .pluck<number[]>('id'),
    );
    const faltan = nombradas.filter((n) => !existentes.has(n.id));
    throw faltan.length > 0 ? NotFoundError.campos(faltan.map(noExisteBodega)) : err;
  }
}

/**
 * In the write's transaction: a product it names that this service has not seen sends it to
 * conProductosConocidos; one deleted is PRODUCTO_ELIMINADO. A locking read, as every read before
 * the write's locks: a plain one would fix the transaction's snapshot before it waits for its
 * warehouse. What requireProductosVivos checks, and whether the products are known, in one
 * statement (issue 23: one round trip less on every stock command). Under REPEATABLE READ a locking read takes, for
 * each known product, its
 * productos_eliminados record shared, or the gap where it would go when there is none (the join's
 * lookup is a unique search of that primary key, locked like requireProductosVivos's own), so a
 * ProductoEliminado waits for this write as before. A product not known yet has no lookup there:
 * this write stops (ProductosDesconocidos) and runs again once it is known, checked again then.
 */
async function requireConocidosVivos(trx: Knex.Transaction, productoIds: number[]): Promise<void> {
  const { sql, bindings } = conocidosVivos(productoIds);
  const [rows] = (await trx.raw(sql, bindings)) as [FilaConocida[]];
  comprobarConocidosVivos(rows, productoIds);
}

function conocidosVivos(productoIds: number[]): { sql: string; bindings: Knex.RawBinding[] } {
  const ids = [...new Set(productoIds)];
  return {
    sql: `SELECT c.producto_id AS conocido, e.producto_id AS eliminado
       FROM productos_conocidos c LEFT JOIN productos_eliminados e ON e.producto_id = c.producto_id
      WHERE c.producto_id IN (${ids.map(() => '?').join(', ')}) LOCK IN SHARE MODE`,
    bindings: ids,
  };
}

function comprobarConocidosVivos(rows: readonly FilaConocida[], productoIds: number[]): void {
  const eliminado = rows.find((r) => r.eliminado !== null);
  if (eliminado) throw productoEliminado(eliminado.conocido);
  if (rows.length < new Set(productoIds).size) throw new ProductosDesconocidos();
}

/**
 * A command's locking reads, in the lock order (its products' records, its warehouses, its levels), sent
 * in one query (issue 24: two round trips less on every movement and transfer, each of them time its
 * locks are held), and checked as comando checks them one by one. Reads of warehouses or levels that
 * the first check then refuses only lock rows, which the refused write's rollback lets go.
 */
async function bloquearJuntos(
  trx: Knex.Transaction,
  productoIds: number[],
  cambios: Cambio[],
  nombradas: readonly BodegaNombrada[] | undefined,
  alta?: SqlFija,
): Promise<{ bodegas: Map<number, BodegaBloqueada>; niveles: Niveles; operacionId?: number }> {
  const bloqueos = bloqueosDe(cambios);
  const lecturas = lecturasDeBodegas(bloqueos);
  const pares = cambios.map((c): [number, number] => [c.bodegaId, c.productoId]);
  const productos = nombradas
    ? conocidosVivos(productoIds)
    : trx('productos_eliminados')
        .whereIn('producto_id', productoIds)
        .forShare()
        .select('producto_id')
        .toSQL()
        .toNative();
  const partes = [productos, ...lecturas.map((l) => l.consulta), leerNiveles(pares), ...(alta ? [alta] : [])];
  const [resultados] = (await trx.raw(
    partes.map((p) => p.sql).join(';\n'),
    partes.flatMap((p) => p.bindings as Knex.RawBinding[]),
  )) as [unknown[][]];
  if (nombradas) comprobarConocidosVivos(resultados[0] as FilaConocida[], productoIds);
  else {
    const eliminados = resultados[0] as { producto_id: number }[];
    if (eliminados.length > 0) throw productoEliminado(eliminados[0]!.producto_id);
  }
  const leidas = lecturas.flatMap((l, i) => l.leidas(resultados[1 + i] as Parameters<typeof l.leidas>[0]));
  const bodegas = await lockBodegasNombradas(trx, bloqueos, nombradas, entrantesDe(cambios), leidas);
  const niveles = await lockNiveles(trx, pares, resultados[1 + lecturas.length] as NivelRow[]);
  if (!alta) return { bodegas, niveles };
  const insertada = resultados[2 + lecturas.length] as unknown as { insertId: number | string };
  return { bodegas, niveles, operacionId: Number(insertada.insertId) };
}

/**
 * Runs a write whose products must exist (docs/decisions.md, "Stock has one home"). A product id
 * this service has not seen (one created a moment ago, whose ProductoCreado is still on its way)
 * is asked of producto-svc outside any transaction, so no lock waits on the call, recorded when
 * it exists, and the write runs again. A product never created is a 404 naming productoId (and
 * any missing warehouse); one deleted is PRODUCTO_ELIMINADO. Safety does not rest on this: a
 * product deleted afterwards is caught by requireProductosVivos or written out by the
 * ProductoEliminado consumer. A keyed repeat replays before any check.
 */
async function conProductosConocidos<T>(
  db: Knex,
  deps: ExistenciaStoreDeps,
  productoIds: number[],
  nombradas: readonly BodegaNombrada[],
  run: () => Promise<T>,
): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (!(err instanceof ProductosDesconocidos)) throw err;
  }
  await conocer(db, deps, productoIds, nombradas);
  return run();
}

async function conocer(
  db: Knex,
  deps: ExistenciaStoreDeps,
  productoIds: number[],
  nombradas: readonly BodegaNombrada[],
): Promise<void> {
  const conocidos = new Set(
    await withDbErrors(() =>
      db('productos_conocidos').whereIn('producto_id', productoIds).pluck<number[]>('producto_id'),
    ),
  );
  const desconocidos = productoIds.filter((id) => !conocidos.has(id));
  if (desconocidos.length === 0) return;
  const inexistentes: number[] = [];
  for (const id of desconocidos) {
    if (await deps.productos.isLive(id)) await registrarProductoConocido(db, id);
    else inexistentes.push(id);
  }
  if (inexistentes.length === 0) return;
  const eliminado = await withDbErrors(() =>
    db('productos_eliminados')
      .whereIn('producto_id', inexistentes)
      .first<{ producto_id: number } | undefined>('producto_id'),
  );
  if (eliminado) throw productoEliminado(eliminado.producto_id);
  const existentes = new Set(
    await withDbErrors(() =>
      db('bodegas')
        .whereIn(
          'id',
          nombradas.map((n) => n.id),
        )
        .pluck<number[]>('id'),
    ),
  );
  throw NotFoundError.campos([
    ...inexistentes.map((id) => ({ campo: 'productoId', mensaje: `no existe el producto ${id}` })),
    ...nombradas.filter((n) => !existentes.has(n.id)).map(noExisteBodega),
  ]);
}

interface Niveles {
  actuales: Map<string, NivelActual>;
  filas: Map<string, number>;
  /**
   * Each locked level's `reservada` as its locking read found it (issue 23): 0 there means no hold,
   * and none can appear before this transaction commits (a hold is added under the level's own lock),
   * so respetarReservas needs no second read of it.
   */
  reservadas?: Map<string, number>;
  /**
   * The locked levels whose threshold may watch `disponible` (alerta_sobre not read as CANTIDAD): the others
   * need no alert read after the write. A level this operation creates watches its units (the default).
   */
  puedenVigilarDisponible?: Set<string>;
}

/**
 * `bloqueadas`: the levels among `pares` this transaction already holds FOR UPDATE, all of them (read again
 * otherwise).
 */
async function lockNiveles(
  trx: Knex.Transaction,
  pares: [number, number][],
  bloqueadas?: readonly NivelRow[],
  sinLineas = false,
): Promise<Niveles> {
  const actuales = new Map<string, NivelActual>();
  const filas = new Map<string, number>();
  const reservadas = new Map<string, number>();
  const puedenVigilarDisponible = new Set<string>();
  if (pares.length === 0) return { actuales, filas, reservadas, puedenVigilarDisponible };
  const rows = bloqueadas ?? (await filasDe<NivelRow>(trx, leerNiveles(pares)));
  for (const r of rows) {
    const k = clave(r.bodega_id, r.producto_id);
    filas.set(k, r.id);
    actuales.set(k, nivelActual(r));
    if (r.reservada !== undefined) reservadas.set(k, Number(r.reservada));
    if (r.alerta_sobre !== 'CANTIDAD') puedenVigilarDisponible.add(k);
  }
  const faltan = pares.filter(([b, p]) => !actuales.has(clave(b, p)));
  if (faltan.length > 0 && !sinLineas) {
    // A removed level continues its lines' versions. Locking read: a plain one would use the snapshot of
    // the transaction's first read and miss lines committed while it waited for its locks.
    const previas = await trx('movimientos')
      .whereIn(['bodega_id', 'producto_id'], faltan)
      .groupBy('bodega_id', 'producto_id')
      .forShare()
      .select<{ bodega_id: number; producto_id: number; version: number }[]>(
        'bodega_id',
        'producto_id',
        trx.raw('MAX(version) AS version'),
      );
    const ultima = new Map(previas.map((r) => [clave(r.bodega_id, r.producto_id), Number(r.version)]));
    for (const [b, p] of faltan) {
      actuales.set(clave(b, p), {
        bodegaId: b,
        productoId: p,
        existe: false,
        cantidad: 0,
        umbralMinimo: null,
        version: ultima.get(clave(b, p)) ?? 0,
      });
    }
  } else {
    // `sinLineas`: the caller knows these products have no line at all, so every level starts at version 0.
    for (const [b, p] of faltan)
      actuales.set(clave(b, p), {
        bodegaId: b,
        productoId: p,
        existe: false,
        cantidad: 0,
        umbralMinimo: null,
        version: 0,
      });
  }
  return { actuales, filas, reservadas, puedenVigilarDisponible };
}

/**
 * Version 0 means "no level". `fijar`: the write sets the level, so an existing one needs its
 * version (PRECONDITION_REQUIRED, REST 428).
 */
function requireVersion(nivel: NivelActual, { expectedVersion, requiereNivel }: CommandOptions, fijar = false): void {
  if (requiereNivel && !nivel.existe) {
    throw new VersionMismatchError(
      null,
      `no hay existencias del producto ${nivel.productoId} en la bodega ${nivel.bodegaId}`,
    );
  }
  if (fijar && nivel.existe && expectedVersion === undefined) throw versionRequerida(nivel.bodegaId, nivel.productoId);
  if (expectedVersion === undefined) return;
  const actual = nivel.existe ? nivel.version : 0;
  if (actual !== expectedVersion)
    throw nivel.existe
      ? VersionMismatchError.of(actual, expectedVersion)
      : new VersionMismatchError(
          null,
          `no hay existencias del producto ${nivel.productoId} en la bodega ${nivel.bodegaId}`,
        );
}

interface OperacionNueva {
  tipo: TipoOperacion;
  comentario: string | null;
  revierteA?: number;
  claveIdempotencia?: string;
}

/** The INSERT of an operation's row, not sent. */
function filaDeOperacion(at: Date, caller: CallContext, nueva: OperacionNueva): SqlFija {
  return insertarOperacion({
    tipo: nueva.tipo,
    usuario: caller.usuario,
    // Who exactly (issue 26), when the call carried a verified principal.
    principal_id: caller.principal?.id ?? null,
    metodo_auth: caller.principal?.metodoAuth ?? null,
    token_id: caller.principal?.tokenId ?? null,
    comentario: nueva.comentario,
    clave_idempotencia: nueva.claveIdempotencia ?? null,
    revierte_a: nueva.revierteA ?? null,
    fecha: at,
  });
}

/** An operation escribir writes. Everything it writes must already be locked. */
interface Escritura {
  at: Date;
  caller: CallContext;
  nueva: OperacionNueva;
  cambios: Cambio[];
  niveles: Niveles;
  bodegas: Map<number, BodegaBloqueada>;
  /** The operation's row when the caller already inserted it (comando, with its locking reads). */
  insertada?: number;
}

/** escribir's first step: the operation's row, its plan (held units respected) and its lines, as written. */
async function insertarLineas(
  trx: Knex.Transaction,
  deps: ExistenciaStoreDeps,
  estado: EstadoExistencias,
  { at, caller, nueva, cambios, niveles, bodegas, insertada }: Escritura,
): Promise<{ operacionId: number; plan: Plan; movimientos: Movimiento[] }> {
  let operacionId: number;
  // The row goes in before the plan. A reversal that waited on the locks of another reversal of
  // the same operation read that operation before the other committed: the unique revierte_a
  // refuses it as already reversed, where its plan would refuse it for the units the other moved.
  // A refused plan rolls the row back.
  if (insertada !== undefined) operacionId = insertada;
  else
    try {
      operacionId = await idInsertado(trx, filaDeOperacion(at, caller, nueva));
    } catch (err) {
      // Two reversals of one operation at once: the unique revierte_a lets one commit.
      if (nueva.revierteA !== undefined && isDuplicateEntry(err)) throw yaRevertida(nueva.revierteA);
      throw err;
    }
  const plan = planOperation(cambios, niveles.actuales, bodegas);
  if (deps.reservas) await respetarReservas(trx, deps.reservas, { ...caller, at }, nueva.tipo, plan.lineas, niveles);
  const primeraLinea = await idInsertado(
    trx,
    insertarMovimientos(
      plan.lineas.map((l) => ({
        operacion_id: operacionId,
        bodega_id: l.bodegaId,
        producto_id: l.productoId,
        tipo: l.tipo,
        motivo: l.motivo,
        cantidad: l.cantidad,
        cantidad_anterior: l.cantidadAnterior,
        cantidad_posterior: l.cantidadPosterior,
        version: l.version,
        usuario: caller.usuario,
        comentario: nueva.comentario,
        fecha: at,
      })),
    ),
  );
  // One line (a movement's): its id is the insert's, the rest is what was written, so no read back.
  // Several: their ids are consecutive from the insert's when the server hands a multi-row INSERT one
  // block of them (idsConsecutivos); otherwise (interleaved auto-increment, as Galera's) read back.
  const movimientos =
    plan.lineas.length === 1 || (await idsConsecutivos(trx, estado))
      ? plan.lineas.map((l, i) =>
          lineaEscrita(Number(primeraLinea) + i, operacionId, l, caller.usuario, nueva.comentario, at),
        )
      : (await trx<MovimientoRow>('movimientos').where({ operacion_id: operacionId }).orderBy('id')).map(toMovimiento);
  return { operacionId, plan, movimientos };
}

/** The statements that leave each level as the operation's last line of it (`finales`) says; not sent. */
function sentenciasDeNiveles(
  trx: Knex.Transaction,
  { finales, niveles, at }: { finales: Map<string, LineaPlaneada>; niveles: Niveles; at: Date },
): Sentencia[] {
  const ultimas: Sentencia[] = [];
  // Removed levels go in one statement: a write-out of hundreds of levels stays a few statements.
  const quitadas: number[] = [];
  for (const [k, l] of finales) {
    const fila = niveles.filas.get(k);
    if (!l.nivel.existe) {
      if (fila !== undefined) quitadas.push(fila);
    } else if (fila === undefined) {
      const escrito = { cantidad: l.nivel.cantidad, umbral_minimo: l.nivel.umbralMinimo, version: l.version };
      ultimas.push({ sentencia: insertarNivel(l.bodegaId, l.productoId, escrito, at) });
    } else {
      const escrito = { cantidad: l.nivel.cantidad, umbral_minimo: l.nivel.umbralMinimo, version: l.version };
      ultimas.push({ sentencia: actualizarNivel(fila, escrito, at) });
    }
  }
  if (quitadas.length > 0) ultimas.push({ sentencia: trx('existencias').whereIn('id', quitadas).delete() });
  return ultimas;
}

/** Later operations in this transaction see the levels this one wrote. */
function recordarNiveles(niveles: Niveles, finales: Map<string, LineaPlaneada>): void {
  for (const [k, l] of finales) {
    niveles.actuales.set(k, {
      bodegaId: l.bodegaId,
      productoId: l.productoId,
      existe: l.nivel.existe,
      cantidad: l.cantidadPosterior,
      umbralMinimo: l.nivel.existe ? l.nivel.umbralMinimo : null,
      version: l.version,
    });
    if (!l.nivel.existe) niveles.filas.delete(k);
  }
}

/** One operation: its row and lines, then its levels, events and occupancy, then the alerts on `disponible`. */
async function escribir(
  trx: Knex.Transaction,
  deps: ExistenciaStoreDeps,
  estado: EstadoExistencias,
  escritura: Escritura,
): Promise<Operacion> {
  const { at, caller, nueva, niveles, bodegas } = escritura;
  const { events } = deps;
  const { operacionId, plan, movimientos } = await insertarLineas(trx, deps, estado, escritura);
  // The level after the operation's last line of it.
  const finales = new Map(plan.lineas.map((l) => [clave(l.bodegaId, l.productoId), l]));
  // The write's last statements (its levels, its events, occupancy last) are sent together, in this
  // order: one round trip when the pool takes several statements in one query (issue 23).
  const ultimas: Sentencia[] = sentenciasDeNiveles(trx, { finales, niveles, at });
  const operacion: Operacion = {
    id: operacionId,
    tipo: nueva.tipo,
    usuario: caller.usuario,
    comentario: nueva.comentario,
    fecha: at,
    revierteA: nueva.revierteA ?? null,
    revertidaPor: null,
    movimientos,
  };
  const ctx = { ...caller, at };
  const eventos: OutboxEvent[] = [events.movimientoRegistrado(operacion, ctx)];
  plan.lineas.forEach((l, i) => {
    if (l.umbral === null || !l.nivel.existe) return;
    eventos.push(
      events.umbral(l.umbral === 'BAJO' ? 'StockBajo' : 'StockRepuesto', movimientos[i]!, l.nivel.umbralMinimo, ctx),
    );
  });
  const evento = insertarEventos(eventos);
  if (evento) ultimas.push({ sentencia: evento });
  // Occupancy last: an exit's stripe (and an entry's warehouse row) is locked for the least time before the commit.
  for (const [bodegaId, delta] of plan.ocupacion) {
    const cambio = cambioDeOcupacion(bodegas.get(bodegaId)!, delta);
    if (cambio) ultimas.push(cambio);
  }
  await enviar(trx, deps, ultimas);
  // Levels watching `disponible` are judged now that the operation's levels and holds are written (§13.9);
  // only those whose locked row may watch it, so a level watching its units costs no extra read.
  await sincronizarAlertasDisponible(
    trx,
    events,
    [...finales]
      .filter(([k, l]) => l.nivel.existe && niveles.puedenVigilarDisponible?.has(k) !== false)
      .map(([, l]) => [l.bodegaId, l.productoId] as const),
    ctx,
    operacionId,
  );
  for (const [bodegaId, delta] of plan.ocupacion) bodegas.get(bodegaId)!.ocupacion += delta;
  recordarNiveles(niveles, finales);
  return operacion;
}

/** comando's locks, a statement at a time: what bloquearJuntos sends in one query. */
async function bloquearUnoAUno(
  trx: Knex.Transaction,
  productoIds: number[],
  cambios: Cambio[],
  nombradas: readonly BodegaNombrada[] | undefined,
): Promise<{ bodegas: Map<number, BodegaBloqueada>; niveles: Niveles }> {
  // A command naming its products by request (not a reversal of lines already written) needs them known too.
  if (nombradas) await requireConocidosVivos(trx, productoIds);
  else await requireProductosVivos(trx, productoIds);
  const bodegas = await lockBodegasNombradas(trx, bloqueosDe(cambios), nombradas, entrantesDe(cambios));
  const niveles = await lockNiveles(
    trx,
    cambios.map((c) => [c.bodegaId, c.productoId]),
  );
  return { bodegas, niveles };
}

/** One command on explicit levels: locks, checks the condition on the first level when asked, writes. */
async function comando(
  trx: Knex.Transaction,
  deps: ExistenciaStoreDeps,
  estado: EstadoExistencias,
  {
    at,
    caller,
    nueva,
    cambios,
    condicion = {},
  }: {
    at: Date;
    caller: CallContext;
    nueva: OperacionNueva;
    cambios: Cambio[];
    condicion?: CommandOptions & { fijar?: boolean; nombradas?: readonly BodegaNombrada[] };
  },
): Promise<{ operacion: Operacion; niveles: Niveles }> {
  const productoIds = [...new Set(cambios.map((c) => c.productoId))];
  // The operation's row rides with the locking reads, right after them as escribir would send it: one round
  // trip less per command (issue 23, CPU per write). Its only lock is its own new row, which nobody else can
  // wait on; a check that then refuses the command rolls it back. Not a reversal's: its duplicate revierte_a
  // must be told apart from its reads (yaRevertida).
  const alta = deps.sentenciasJuntas && nueva.revierteA === undefined ? filaDeOperacion(at, caller, nueva) : undefined;
  const { bodegas, niveles, operacionId }: Awaited<ReturnType<typeof bloquearJuntos>> = deps.sentenciasJuntas
    ? await bloquearJuntos(trx, productoIds, cambios, condicion.nombradas, alta)
    : await bloquearUnoAUno(trx, productoIds, cambios, condicion.nombradas);
  const primero = cambios[0]!;
  requireVersion(niveles.actuales.get(clave(primero.bodegaId, primero.productoId))!, condicion, condicion.fijar);
  const operacion = await escribir(trx, deps, estado, {
    at,
    caller,
    nueva,
    cambios,
    niveles,
    bodegas,
    insertada: operacionId,
  });
  return { operacion, niveles };
}

/** Writes out every level among `rows` (locked), in operations of at most LINEAS_POR_OPERACION lines. */
async function retirarTodo(
  trx: Knex.Transaction,
  deps: ExistenciaStoreDeps,
  estado: EstadoExistencias,
  {
    at,
    caller,
    tipo,
    rows,
    bodegas,
  }: {
    at: Date;
    caller: CallContext;
    tipo: 'PRODUCTO_ELIMINADO' | 'BODEGA_ELIMINADA';
    rows: NivelRow[];
    bodegas: Map<number, BodegaBloqueada>;
  },
): Promise<{ niveles: number; unidades: number }> {
  let unidades = 0;
  for (let i = 0; i < rows.length; i += LINEAS_POR_OPERACION) {
    const parte = rows.slice(i, i + LINEAS_POR_OPERACION);
    const niveles: Niveles = { actuales: new Map(), filas: new Map() };
    for (const r of parte) {
      const k = clave(r.bodega_id, r.producto_id);
      niveles.filas.set(k, r.id);
      niveles.actuales.set(k, nivelActual(r));
      unidades += r.cantidad;
    }
    const cambios: Cambio[] = parte.map((r) => ({
      bodegaId: r.bodega_id,
      productoId: r.producto_id,
      tipo: 'SALIDA',
      motivo: tipo,
      retirar: true,
    }));
    await escribir(trx, deps, estado, { at, caller, nueva: { tipo, comentario: null }, cambios, niveles, bodegas });
  }
  return { niveles: rows.length, unidades };
}

async function readOperacion(conn: Knex | Knex.Transaction, id: number): Promise<Operacion> {
  const row = await conn<OperacionRow>('operaciones').where({ id }).first();
  if (!row) throw new NotFoundError(`No existe la operación con id ${id}`);
  const [lineas, reverso] = await Promise.all([
    conn<MovimientoRow>('movimientos').where({ operacion_id: id }).orderBy('id'),
    conn('operaciones').where({ revierte_a: id }).first<{ id: number | string } | undefined>('id'),
  ]);
  return {
    id: Number(row.id),
    tipo: row.tipo,
    usuario: row.usuario,
    comentario: row.comentario,
    fecha: row.fecha,
    revierteA: row.revierte_a === null ? null : Number(row.revierte_a),
    revertidaPor: reverso ? Number(reverso.id) : null,
    movimientos: lineas.map(toMovimiento),
  };
}

function yaRevertida(operacionId: number): FailedPreconditionError {
  return new FailedPreconditionError(`la operación ${operacionId} ya fue revertida`, {
    reason: 'OPERACION_YA_REVERTIDA',
    datos: { operacionId },
  });
}

function asignar(
  db: Knex,
  deps: ExistenciaStoreDeps,
  estado: EstadoExistencias,
  { asignacion: a, caller, opts }: { asignacion: Asignacion; caller: CallContext; opts: CommandOptions },
): Promise<{ existencia: Existencia; operacion: Operacion }> {
  const nombradas = [{ campo: 'bodegaId', id: a.bodegaId }];
  return conProductosConocidos(db, deps, [a.productoId], nombradas, () =>
    write(db, deps, caller, async (trx, at) => {
      const cambio: Cambio = {
        bodegaId: a.bodegaId,
        productoId: a.productoId,
        tipo: 'AJUSTE',
        motivo: 'ASIGNACION',
        fijar: a.cantidad,
        umbralMinimo: a.umbralMinimo,
      };
      const { operacion } = await comando(trx, deps, estado, {
        at,
        caller,
        nueva: { tipo: 'ASIGNACION', comentario: null, claveIdempotencia: opts.claveIdempotencia },
        cambios: [cambio],
        condicion: {
          ...opts,
          fijar: opts.versionRequerida,
          nombradas,
        },
      });
      const nivel = await trx<NivelRow>('existencias')
        .where({ bodega_id: a.bodegaId, producto_id: a.productoId })
        .first();
      return { existencia: toExistencia(nivel!), operacion };
    }),
  );
}

function cambiarUmbral(
  db: Knex,
  deps: ExistenciaStoreDeps,
  {
    cambio: { bodegaId, productoId, umbralMinimo, alertaSobre },
    caller,
    opts,
  }: {
    cambio: { bodegaId: number; productoId: number; umbralMinimo: number | null; alertaSobre?: AlertaSobre };
    caller: CallContext;
    opts: CommandOptions;
  },
): Promise<Existencia> {
  return write(db, deps, caller, async (trx, at) => {
    // The same locks, in the same order, as a stock write: a deleted product's level takes no new setting.
    await requireProductosVivos(trx, [productoId]);
    // A threshold moves no units: shared, like an exit.
    await lockBodegasNombradas(trx, new Map([[bodegaId, 'compartido']]), [{ campo: 'bodegaId', id: bodegaId }]);
    const niveles = await lockNiveles(trx, [[bodegaId, productoId]]);
    const nivel = niveles.actuales.get(clave(bodegaId, productoId))!;
    requireVersion(nivel, opts);
    if (!nivel.existe) throw sinExistencias(bodegaId, productoId);
    const antes = await trx<NivelRow>('existencias')
      .where({ bodega_id: bodegaId, producto_id: productoId })
      .first('reservada', 'bajo_disponible');
    const sobre = alertaSobre ?? nivel.alertaSobre ?? 'CANTIDAD';
    const plan = planUmbral(
      { ...nivel, reservada: antes?.reservada ?? 0, bajoDisponible: antes?.bajo_disponible === 1 },
      umbralMinimo,
      sobre,
    );
    await trx('existencias')
      .where({ id: niveles.filas.get(clave(bodegaId, productoId))! })
      .update({
        umbral_minimo: umbralMinimo,
        alerta_sobre: sobre,
        // The alert on `disponible` is the one now raised; watching the units, none is recorded.
        bajo_disponible:
          sobre === 'DISPONIBLE' && esBajo(nivel.cantidad - (antes?.reservada ?? 0), umbralMinimo) ? 1 : 0,
        version: plan.version,
        fecha_actualizacion: at,
      });
    const fila = await trx<NivelRow>('existencias').where({ bodega_id: bodegaId, producto_id: productoId }).first();
    const existencia = toExistencia(fila!);
    if (plan.umbral !== null) {
      const ctx = { ...caller, at };
      const tipo = plan.umbral === 'BAJO' ? 'StockBajo' : 'StockRepuesto';
      await enqueueEvents(trx, [
        sobre === 'DISPONIBLE'
          ? deps.events.umbralDisponible(tipo, { ...existencia, reservada: fila!.reservada ?? 0 }, null, ctx)
          : deps.events.umbralCambiado(tipo, existencia, ctx),
      ]);
    }
    return existencia;
  });
}

function retirar(
  db: Knex,
  deps: ExistenciaStoreDeps,
  estado: EstadoExistencias,
  {
    bodegaId,
    productoId,
    caller,
    opts,
  }: { bodegaId: number; productoId: number; caller: CallContext; opts: CommandOptions },
): Promise<{ cantidadRetirada: number; operacion: Operacion }> {
  return write(db, deps, caller, async (trx, at) => {
    // A write-out needs no live product: the level of a product deleted a moment ago can still go.
    const bodegas = await lockBodegasNombradas(trx, new Map([[bodegaId, 'compartido']]), [
      { campo: 'bodegaId', id: bodegaId },
    ]);
    const niveles = await lockNiveles(trx, [[bodegaId, productoId]]);
    const nivel = niveles.actuales.get(clave(bodegaId, productoId))!;
    requireVersion(nivel, opts);
    // An error, not an empty answer: nothing was done, so a keyed call records nothing (§9.2).
    if (!nivel.existe) throw sinExistencias(bodegaId, productoId);
    const operacion = await escribir(trx, deps, estado, {
      at,
      caller,
      nueva: { tipo: 'RETIRO', comentario: null, claveIdempotencia: opts.claveIdempotencia },
      cambios: [{ bodegaId, productoId, tipo: 'SALIDA', motivo: 'RETIRO', retirar: true }],
      niveles,
      bodegas,
    });
    return { cantidadRetirada: nivel.cantidad, operacion };
  });
}

function registrarMovimiento(
  db: Knex,
  deps: ExistenciaStoreDeps,
  estado: EstadoExistencias,
  { movimiento: m, caller, opts }: { movimiento: MovimientoSolicitado; caller: CallContext; opts: CommandOptions },
): Promise<Operacion> {
  const nombradas = [{ campo: 'bodegaId', id: m.bodegaId }];
  return conProductosConocidos(db, deps, [m.productoId], nombradas, () =>
    write(db, deps, caller, async (trx, at) => {
      const base = { bodegaId: m.bodegaId, productoId: m.productoId, tipo: TIPO_LINEA[m.tipo]!, motivo: m.motivo };
      const cambio: Cambio =
        m.tipo === 'AJUSTE'
          ? { ...base, fijar: m.cantidad }
          : { ...base, delta: m.tipo === 'ENTRADA' ? m.cantidad : -m.cantidad };
      const { operacion } = await comando(trx, deps, estado, {
        at,
        caller,
        nueva: { tipo: m.tipo, comentario: m.comentario, claveIdempotencia: opts.claveIdempotencia },
        cambios: [cambio],
        condicion: {
          ...opts,
          nombradas,
        },
      });
      return operacion;
    }),
  );
}

function transferir(
  db: Knex,
  deps: ExistenciaStoreDeps,
  estado: EstadoExistencias,
  { transferencia: t, caller, opts }: { transferencia: Transferencia; caller: CallContext; opts: CommandOptions },
): Promise<Operacion> {
  const nombradas = [
    { campo: 'origenId', id: t.origenId },
    { campo: 'destinoId', id: t.destinoId },
  ];
  return conProductosConocidos(db, deps, [t.productoId], nombradas, () =>
    write(db, deps, caller, async (trx, at) => {
      const cambios: Cambio[] = [
        {
          bodegaId: t.origenId,
          productoId: t.productoId,
          tipo: 'TRANSFERENCIA',
          motivo: 'TRANSFERENCIA',
          delta: -t.cantidad,
        },
        {
          bodegaId: t.destinoId,
          productoId: t.productoId,
          tipo: 'TRANSFERENCIA',
          motivo: 'TRANSFERENCIA',
          delta: t.cantidad,
        },
      ];
      const { operacion } = await comando(trx, deps, estado, {
        at,
        caller,
        nueva: { tipo: 'TRANSFERENCIA', comentario: t.comentario, claveIdempotencia: opts.claveIdempotencia },
        cambios,
        condicion: { ...opts, nombradas },
      });
      return operacion;
    }),
  );
}

function revertir(
  db: Knex,
  deps: ExistenciaStoreDeps,
  estado: EstadoExistencias,
  {
    operacionId,
    comentario,
    caller,
    opts,
  }: { operacionId: number; comentario: string | null; caller: CallContext; opts: CommandOptions },
): Promise<Operacion> {
  return write(db, deps, caller, async (trx, at) => {
    const original = await readOperacion(trx, operacionId).catch((err: unknown) => {
      // The operation is the request's `id`.
      throw err instanceof NotFoundError
        ? NotFoundError.campos([{ campo: 'id', mensaje: `no existe la operación ${operacionId}` }])
        : err;
    });
    const cambios = cambiosDeReverso(original);
    const { operacion } = await comando(trx, deps, estado, {
      at,
      caller,
      nueva: { tipo: 'REVERSO', comentario, revierteA: operacionId, claveIdempotencia: opts.claveIdempotencia },
      cambios,
    });
    return operacion;
  });
}

async function retirarProductoEliminado(
  db: Knex,
  deps: ExistenciaStoreDeps,
  estado: EstadoExistencias,
  productoId: number,
): Promise<void> {
  const caller: CallContext = { usuario: 'system' };
  await write(db, deps, caller, async (trx, at) => {
    // The record first: from here on stock writes for the product wait for this
    // transaction, and those already running have committed (requireProductosVivos).
    await trx.raw('INSERT IGNORE INTO productos_eliminados (producto_id) VALUES (?)', [productoId]);
    const donde = await trx('existencias').where({ producto_id: productoId }).pluck<number[]>('bodega_id');
    if (donde.length === 0) return;
    // Then the fixed order: its warehouses (those still there; it only takes units out), then its levels.
    const bodegas = await bloquearBodegas(
      trx,
      new Map(donde.filter((id) => id !== SIN_UBICAR).map((id) => [id, 'compartido' as const])),
    );
    // Its unlocated units go too: "no stock of a deleted product anywhere".
    if (donde.includes(SIN_UBICAR)) bodegas.set(SIN_UBICAR, sinUbicar());
    const niveles = await trx<NivelRow>('existencias')
      .where({ producto_id: productoId })
      .whereIn('bodega_id', [...bodegas.keys()])
      .orderBy('id')
      .forUpdate();
    await retirarTodo(trx, deps, estado, { at, caller, tipo: 'PRODUCTO_ELIMINADO', rows: niveles, bodegas });
  });
}

async function registrarProductoConocido(db: Knex, productoId: number): Promise<void> {
  await withDbErrors(() => db.raw('INSERT IGNORE INTO productos_conocidos (producto_id) VALUES (?)', [productoId]));
}

async function esProductoConocido(db: Knex, productoId: number): Promise<boolean> {
  const row = await withDbErrors(() =>
    db('productos_conocidos')
      .where({ producto_id: productoId })
      .first<{ producto_id: number } | undefined>('producto_id'),
  );
  return row !== undefined;
}

async function leerStockInicial(db: Knex, productoId: number): Promise<{ conUnidades: boolean } | undefined> {
  const row = await withDbErrors(() =>
    db('stock_inicial')
      .where({ producto_id: productoId, origen: 'STOCK_INICIAL' })
      .first<{ operacion_id: number | string | null } | undefined>('operacion_id'),
  );
  return row === undefined ? undefined : { conUnidades: row.operacion_id !== null };
}

async function retirarDeBodega(
  trx: Knex.Transaction,
  deps: ExistenciaStoreDeps,
  estado: EstadoExistencias,
  { bodegaId, caller, at, limite }: { bodegaId: number; caller: CallContext; at: Date; limite: number },
): Promise<{ niveles: number; unidades: number }> {
  const bodegas = await lockBodegas(trx, new Map([[bodegaId, 'exclusivo']]), { eliminandose: true });
  // In the unique index's order, so the locking read stops at `limite` rows instead of sorting the warehouse.
  const rows = await trx<NivelRow>('existencias')
    .where({ bodega_id: bodegaId })
    .orderBy('producto_id')
    .limit(limite)
    .forUpdate();
  return retirarTodo(trx, deps, estado, { at, caller, tipo: 'BODEGA_ELIMINADA', rows, bodegas });
}

async function salidaDeReserva(
  trx: Knex.Transaction,
  deps: ExistenciaStoreDeps,
  estado: EstadoExistencias,
  {
    at,
    caller,
    lineas,
    comentario,
    bloqueados,
  }: {
    at: Date;
    caller: CallContext;
    lineas: { bodegaId: number; productoId: number; cantidad: number }[];
    comentario: string | null;
    bloqueados?: BloqueadosPorReserva;
  },
): Promise<Operacion> {
  const cambios: Cambio[] = lineas.map((l) => ({
    bodegaId: l.bodegaId,
    productoId: l.productoId,
    tipo: 'SALIDA',
    motivo: 'VENTA',
    delta: -l.cantidad,
  }));
  // The reservation's write holds them already (issue 24: not locked and read a second time).
  const bodegas = bloqueados
    ? comprobarBodegas(bloqueosDe(cambios), bloqueados.bodegas)
    : await lockBodegas(trx, bloqueosDe(cambios));
  const niveles = await lockNiveles(
    trx,
    cambios.map((c) => [c.bodegaId, c.productoId]),
    bloqueados?.niveles,
  );
  return escribir(trx, deps, estado, { at, caller, nueva: { tipo: 'SALIDA', comentario }, cambios, niveles, bodegas });
}

async function tieneExistencias(trx: Knex.Transaction, bodegaId: number): Promise<boolean> {
  // A locking read: a plain one reads the snapshot of the transaction's first read (a keyed
  // delete's idempotency lookup), which misses a level committed while the delete waited.
  return (await trx('existencias').where({ bodega_id: bodegaId }).forShare().first('id')) !== undefined;
}

function productosEnBodega(db: Knex, bodegaId: number, limite: number): Promise<number[]> {
  return withDbErrors(() =>
    db('existencias')
      .where({ bodega_id: bodegaId })
      .orderBy('producto_id')
      .limit(limite)
      .pluck<number[]>('producto_id'),
  );
}

/** A missing level is named on productoId, or the warehouse on bodegaId when it is the one missing. */
async function get(db: Knex, reloj: string, bodegaId: number, productoId: number): Promise<Existencia> {
  const row = await withDbErrors(() =>
    db<NivelRow>('existencias')
      .where({ bodega_id: bodegaId, producto_id: productoId })
      .first<NivelRow | undefined>('*', db.raw(reservadaVigenteSql(reloj))),
  );
  if (row) return toExistencia(row);
  const bodega = await withDbErrors(() =>
    db('bodegas').where({ id: bodegaId }).first<{ id: number } | undefined>('id'),
  );
  throw bodega
    ? sinExistencias(bodegaId, productoId)
    : NotFoundError.campos([noExisteBodega({ campo: 'bodegaId', id: bodegaId })]);
}

async function list(
  db: Knex,
  reloj: string,
  { pageSize, after, bodegaIds, productoIds }: ExistenciaQuery,
): Promise<{ existencias: Existencia[]; hasMore: boolean }> {
  const rows = await withDbErrors(() => {
    const q = db<NivelRow>('existencias')
      .select('*', db.raw(reservadaVigenteSql(reloj)))
      .orderBy([{ column: 'bodega_id' }, { column: 'producto_id' }])
      .limit(pageSize + 1);
    if (bodegaIds.length > 0) q.whereIn('bodega_id', bodegaIds);
    // Levels of warehouses: the unlocated one is no warehouse's (its units: totalesDeProductos).
    else q.where('bodega_id', '<>', SIN_UBICAR);
    if (productoIds.length > 0) q.whereIn('producto_id', productoIds);
    if (after) {
      q.whereRaw('(bodega_id, producto_id) > (?, ?)', [after.bodegaId, after.productoId]);
    }
    return q;
  });
  return { existencias: rows.slice(0, pageSize).map(toExistencia), hasMore: rows.length > pageSize };
}

async function listPorLote(
  db: Knex,
  reloj: string,
  { pageSize, after, parents, perParent, afterId, visibles }: ExistenciasPorLoteQuery,
): Promise<{ existencias: Existencia[]; hasMore: boolean }> {
  const porBodega = 'bodegaIds' in parents;
  const [parent, other] = porBodega ? ['bodega_id', 'producto_id'] : ['producto_id', 'bodega_id'];
  const niveles = db<NivelRow>('existencias');
  if (porBodega) {
    niveles.whereIn('bodega_id', parents.bodegaIds);
    // A whole warehouse before the page's start is no part of it, nor of any later warehouse's count.
    if (after) niveles.where('bodega_id', '>=', after.bodegaId);
  } else niveles.whereIn('producto_id', parents.productoIds).where('bodega_id', '<>', SIN_UBICAR);
  if (visibles) niveles.whereIn('bodega_id', visibles);
  if (afterId !== null) niveles.where(other, '>', afterId);
  // Each parent's levels numbered in its own order before the page's start is applied, so the
  // count of a parent does not depend on where a page ended.
  const q: Knex.QueryBuilder =
    perParent > 0
      ? db
          .select('*', db.raw(reservadaVigenteSql(reloj)))
          .from(
            niveles
              .select('*', db.raw('ROW_NUMBER() OVER (PARTITION BY ?? ORDER BY ??) AS n_del_padre', [parent, other]))
              .as('existencias'),
          )
          .where('n_del_padre', '<=', perParent)
      : niveles.select('*', db.raw(reservadaVigenteSql(reloj)));
  q.orderBy([{ column: 'bodega_id' }, { column: 'producto_id' }]).limit(pageSize + 1);
  if (after) q.whereRaw('(bodega_id, producto_id) > (?, ?)', [after.bodegaId, after.productoId]);
  const rows = await withDbErrors<NivelRow[]>(async () => (await q) as NivelRow[]);
  return { existencias: rows.slice(0, pageSize).map(toExistencia), hasMore: rows.length > pageSize };
}

async function listMovimientos(
  db: Knex,
  query: MovimientoQuery,
): Promise<{ movimientos: Movimiento[]; hasMore: boolean }> {
  const rows = await withDbErrors(() => {
    const q = db<MovimientoRow>('movimientos')
      .orderBy('id', 'desc')
      .limit(query.pageSize + 1);
    if (query.beforeId !== null) q.where('id', '<', query.beforeId);
    if (query.bodegaId !== undefined) q.where('bodega_id', query.bodegaId);
    if (query.bodegaIds !== undefined) q.whereIn('bodega_id', query.bodegaIds);
    if (query.productoId !== undefined) q.where('producto_id', query.productoId);
    if (query.tipo !== undefined) q.where('tipo', query.tipo);
    if (query.desde !== undefined) q.where('fecha', '>=', query.desde);
    if (query.hasta !== undefined) q.where('fecha', '<', query.hasta);
    if (query.operacionId !== undefined) q.where('operacion_id', query.operacionId);
    return q;
  });
  return { movimientos: rows.slice(0, query.pageSize).map(toMovimiento), hasMore: rows.length > query.pageSize };
}

// One answer (docs/contract.md §10.6): the product's figure, its initial stock and its counts.

/**
 * READ COMMITTED: every product create records its units, so many of these insert new levels and
 * lines at the end of the same index ranges at once. Under REPEATABLE READ each would first take
 * a gap lock there (the locking reads of a level not there yet), and the inserts of any two would
 * deadlock. Without gap locks, a level or line written meanwhile by another transaction is caught
 * by the unique keys (level, line version); and the product's deletion is checked after the
 * writes (sigueVivo), which closes that race without a gap lock.
 */
function writeRc<T>(
  db: Knex,
  deps: ExistenciaStoreDeps,
  caller: CallContext,
  work: (trx: Knex.Transaction, at: Date) => Promise<T>,
): Promise<T> {
  return writeTransaction(db, (trx) => work(trx, nowToSecond()), {
    onCommitted: deps.onCommitted,
    idempotency: { key: caller.idempotency, codec: RESULTS, ttlSeconds: deps.idempotencyTtlSeconds },
    signal: caller.signal,
    isolationLevel: 'read committed',
  });
}

/**
 * After this transaction wrote the product's levels: a ProductoEliminado committed before is seen
 * here (a locking read of its record waits for one in flight); one committed after finds these
 * levels in its locking scan and writes them out.
 */
async function sigueVivo(trx: Knex.Transaction, productoId: number): Promise<boolean> {
  const record = await trx('productos_eliminados')
    .where({ producto_id: productoId })
    .forShare()
    .first<{ producto_id: number } | undefined>('producto_id');
  return record === undefined;
}

/**
 * Held exclusively by the product's initial stock and its counts, before any warehouse (the
 * store's lock order: products, then warehouses, then levels). A stock command naming the
 * product holds the row shared (requireConocidos) until it commits, so from here to this
 * transaction's commit no command of the product is in flight or begins. Recording it as known
 * is right for both: producto-svc asks for them, so the product exists.
 */
async function bloquearConocido(trx: Knex.Transaction, productoId: number): Promise<void> {
  await trx.raw(
    'INSERT INTO productos_conocidos (producto_id) VALUES (?) ON DUPLICATE KEY UPDATE producto_id = producto_id',
    [productoId],
  );
}

/**
 * The product's levels, locked with their warehouses (and `bodegaId`'s, when it names one still there), in the
 * store's order.
 * `nuevo`: the product has no level and no line in the ledger (these are its first units).
 */
async function lockProducto(
  trx: Knex.Transaction,
  productoId: number,
  bodegaId: number | null,
  entran?: number,
): Promise<{ bodegas: Map<number, BodegaBloqueada>; niveles: Niveles; filas: NivelRow[]; nuevo: boolean }> {
  for (;;) {
    // Its levels' warehouses, and (a row with a NULL warehouse) whether it has any line at all, in one
    // round trip (issue 23). No level and no line: the product is new to the ledger, and
    // (bloquearConocido held first) no level of it can appear before this commits: no command of it
    // runs, and nothing else makes a level of a product without lines. So its levels need no second,
    // locking read, and every level starts at version 0 (lockNiveles reads no lines): issue 23.
    const [leidas] = (await trx.raw(
      `SELECT bodega_id FROM existencias WHERE producto_id = ?
       UNION ALL (SELECT NULL AS bodega_id FROM movimientos WHERE producto_id = ? LIMIT 1)`,
      [productoId, productoId],
    )) as [{ bodega_id: number | null }[]];
    const donde = leidas.flatMap((r) => (r.bodega_id === null ? [] : [Number(r.bodega_id)]));
    const nuevo = leidas.length === 0;
    const ids = [...new Set([...donde, ...(bodegaId === null ? [] : [bodegaId])])].filter((id) => id !== SIN_UBICAR);
    // Held exclusively (units may come in). Only `bodegaId` gains units, at most `entran` when known:
    // with that much room under its stored occupancy the stripes need no fold (ocupacion.ts).
    const entrantes = new Map(
      ids.filter((id) => id !== bodegaId || entran !== undefined).map((id) => [id, id === bodegaId ? entran! : 0]),
    );
    const bodegas = await bloquearBodegas(trx, new Map(ids.map((id) => [id, 'exclusivo' as const])), entrantes);
    bodegas.set(SIN_UBICAR, sinUbicar());
    const filas = nuevo
      ? []
      : await trx<NivelRow>('existencias').where({ producto_id: productoId }).orderBy('id').forUpdate();
    // A level created in another warehouse between the two reads: lock that one too.
    if (filas.some((f) => !bodegas.has(f.bodega_id))) continue;
    const pares: [number, number][] = [...new Set([...filas.map((f) => f.bodega_id), ...bodegas.keys()])].map((b) => [
      b,
      productoId,
    ]);
    // filas are every level of the product, locked: no need to read them again (issue 23).
    return { bodegas, niveles: await lockNiveles(trx, pares, filas, nuevo), filas, nuevo };
  }
}

/** `cantidad` more units: into `bodegaId` as far as it has room, the rest unlocated. */
function entradas({
  productoId,
  bodegaId,
  bodegas,
  cantidad,
  tipo,
  motivo,
}: {
  productoId: number;
  bodegaId: number | null;
  bodegas: Map<number, BodegaBloqueada>;
  cantidad: number;
  tipo: TipoMovimiento;
  motivo: Cambio['motivo'];
}): Cambio[] {
  const bodega = bodegaId === null ? undefined : bodegas.get(bodegaId);
  const cabe = bodega ? Math.min(cantidad, Math.max(0, bodega.capacidad - bodega.ocupacion)) : 0;
  const cambios: Cambio[] = [];
  if (cabe > 0) cambios.push({ bodegaId: bodega!.id, productoId, tipo, motivo, delta: cabe });
  if (cantidad - cabe > 0) cambios.push({ bodegaId: SIN_UBICAR, productoId, tipo, motivo, delta: cantidad - cabe });
  return cambios;
}

async function totalesDeProductos(db: Knex, productoIds: readonly number[]): Promise<TotalDeProducto[]> {
  if (productoIds.length === 0) return [];
  const rows = await withDbErrors(() =>
    db('existencias')
      .whereIn('producto_id', [...new Set(productoIds)])
      .groupBy('producto_id')
      .select<{ producto_id: number; total: number | string; sin_ubicar: number | string }[]>(
        'producto_id',
        db.raw('SUM(cantidad) AS total'),
        db.raw('SUM(CASE WHEN bodega_id = ? THEN cantidad ELSE 0 END) AS sin_ubicar', [SIN_UBICAR]),
      ),
  );
  const porId = new Map(rows.map((r) => [r.producto_id, { total: Number(r.total), sinUbicar: Number(r.sin_ubicar) }]));
  return productoIds.map((productoId) => ({
    productoId,
    ...(porId.get(productoId) ?? { total: 0, sinUbicar: 0 }),
  }));
}

async function registrarStockInicial(
  db: Knex,
  deps: ExistenciaStoreDeps,
  estado: EstadoExistencias,
  {
    inicial: { productoId, bodegaId, cantidad, origen },
    caller,
    opts,
  }: { inicial: StockInicial; caller: CallContext; opts: CommandOptions & StockInicialOptions },
): Promise<StockInicialRegistrado | null> {
  const recorded = writeRc(db, deps, caller, async (trx, at): Promise<StockInicialRegistrado | null> => {
    // No early check of the product's deletion: the one after the writes (sigueVivo below) rolls a
    // deleted product's recording back, and this one was one more round trip on every create (issue 23).
    // The row first: a second recording of this product and origin waits here, then finds it.
    try {
      await trx('stock_inicial').insert({ producto_id: productoId, origen, operacion_id: null, fecha: at });
    } catch (err) {
      if (!isDuplicateEntry(err)) throw err;
      const previa = await trx('stock_inicial')
        .where({ producto_id: productoId, origen })
        .first<{ operacion_id: number | string | null }>('operacion_id');
      return previa?.operacion_id == null ? null : { operacion: await readOperacion(trx, Number(previa.operacion_id)) };
    }
    // producto-svc asks for it: the product exists (stock commands need not ask again).
    await bloquearConocido(trx, productoId);
    const { bodegas, niveles, filas, nuevo } = await lockProducto(trx, productoId, bodegaId, cantidad);
    // The row stays, with no operation: held by bloquearConocido, no command of it ran in between.
    if (opts.soloSiNuevo && !nuevo) return null;
    // A migration records what no level explains; when the levels hold more, the ledger wins.
    const antes = filas.reduce((sum, f) => sum + f.cantidad, 0);
    const faltan = origen === 'MIGRACION' ? cantidad - antes : cantidad;
    if (faltan <= 0) return null;
    const cambios = entradas({ productoId, bodegaId, bodegas, cantidad: faltan, tipo: 'ENTRADA', motivo: origen });
    const comentario =
      origen === 'MIGRACION'
        ? 'migración: cantidadEnStock anterior al libro'
        : 'stock inicial del producto (cantidadEnStock al crearlo)';
    const operacion = await escribir(trx, deps, estado, {
      at,
      caller,
      nueva: { tipo: 'ENTRADA', comentario, claveIdempotencia: opts.claveIdempotencia },
      cambios,
      niveles,
      bodegas,
    });
    await trx('stock_inicial').where({ producto_id: productoId, origen }).update({ operacion_id: operacion.id });
    // Deleted meanwhile: the whole recording rolls back (answered as nothing recorded).
    if (!(await sigueVivo(trx, productoId))) throw new ProductoYaEliminado();
    // Its first units: no command of it can run until this commits (bloquearConocido), and none
    // ran before (no line), so its total at this commit is exactly what came in. Otherwise a level
    // it gets meanwhile in a warehouse this does not hold could be missed: no total (the caller asks).
    return nuevo ? { operacion, total: faltan } : { operacion };
  });
  return recorded.catch((err: unknown) => {
    if (err instanceof ProductoYaEliminado) return null;
    throw err;
  });
}

/**
 * The product's total becomes `cantidad`. More units go to its warehouse as far as it has
 * room, the rest unlocated; fewer come out of its warehouse's level first, then the unlocated
 * one, then its other warehouses in id order. One AJUSTE operation (motivo CONTEO); none when
 * the total already is `cantidad`.
 */
function contarProducto(
  db: Knex,
  deps: ExistenciaStoreDeps,
  estado: EstadoExistencias,
  {
    conteo: { productoId, bodegaId, cantidad },
    caller,
    opts,
  }: { conteo: ConteoDeProducto; caller: CallContext; opts: CommandOptions },
): Promise<{ operacion: Operacion | null; total: number }> {
  return writeRc(db, deps, caller, async (trx, at) => {
    await bloquearConocido(trx, productoId);
    const { bodegas, niveles, filas } = await lockProducto(trx, productoId, bodegaId);
    const total = filas.reduce((sum, f) => sum + f.cantidad, 0);
    const diferencia = cantidad - total;
    if (diferencia === 0) {
      if (!(await sigueVivo(trx, productoId))) throw productoEliminado(productoId);
      return { operacion: null, total };
    }
    let cambios: Cambio[];
    if (diferencia > 0) {
      cambios = entradas({ productoId, bodegaId, bodegas, cantidad: diferencia, tipo: 'AJUSTE', motivo: 'CONTEO' });
    } else {
      const orden = (b: number) => (b === bodegaId ? 0 : b === SIN_UBICAR ? 1 : 2);
      const porOrden = [...filas].sort((x, y) => orden(x.bodega_id) - orden(y.bodega_id) || x.bodega_id - y.bodega_id);
      let falta = -diferencia;
      cambios = [];
      for (const f of porOrden) {
        const sale = Math.min(falta, f.cantidad);
        if (sale > 0)
          cambios.push({ bodegaId: f.bodega_id, productoId, tipo: 'AJUSTE', motivo: 'CONTEO', delta: -sale });
        falta -= sale;
      }
    }
    const comentario = `conteo del producto: cantidadEnStock ${cantidad}`;
    const operacion = await escribir(trx, deps, estado, {
      at,
      caller,
      nueva: { tipo: 'AJUSTE', comentario, claveIdempotencia: opts.claveIdempotencia },
      cambios,
      niveles,
      bodegas,
    });
    if (!(await sigueVivo(trx, productoId))) throw productoEliminado(productoId);
    return { operacion, total: cantidad };
  });
}

export function createExistenciaStore(db: Knex, deps: ExistenciaStoreDeps): ExistenciaStore {
  const reloj = deps.reservas?.reloj ?? RELOJ_BD;
  const estado: EstadoExistencias = {};
  return {
    asignar: (asignacion, caller, opts) => asignar(db, deps, estado, { asignacion, caller, opts }),
    cambiarUmbral: (cambio, caller, opts) => cambiarUmbral(db, deps, { cambio, caller, opts }),
    retirar: (bodegaId, productoId, caller, opts) => retirar(db, deps, estado, { bodegaId, productoId, caller, opts }),
    registrarMovimiento: (movimiento, caller, opts) =>
      registrarMovimiento(db, deps, estado, { movimiento, caller, opts }),
    transferir: (transferencia, caller, opts) => transferir(db, deps, estado, { transferencia, caller, opts }),
    revertir: (operacionId, comentario, caller, opts) =>
      revertir(db, deps, estado, { operacionId, comentario, caller, opts }),
    retirarProductoEliminado: (productoId) => retirarProductoEliminado(db, deps, estado, productoId),
    retirarDeBodega: (trx, bodegaId, caller, at, limite) =>
      retirarDeBodega(trx, deps, estado, { bodegaId, caller, at, limite }),
    registrarProductoConocido: (productoId) => registrarProductoConocido(db, productoId),
    esProductoConocido: (productoId) => esProductoConocido(db, productoId),
    leerStockInicial: (productoId) => leerStockInicial(db, productoId),
    salidaDeReserva: (trx, at, caller, lineas, comentario, bloqueados) =>
      salidaDeReserva(trx, deps, estado, { at, caller, lineas, comentario, bloqueados }),
    tieneExistencias: (trx, bodegaId) => tieneExistencias(trx, bodegaId),
    productosEnBodega: (bodegaId, limite) => productosEnBodega(db, bodegaId, limite),
    get: (bodegaId, productoId) => get(db, reloj, bodegaId, productoId),
    list: (query) => list(db, reloj, query),
    listPorLote: (query) => listPorLote(db, reloj, query),
    getOperacion: (id) => withDbErrors(() => readOperacion(db, id)),
    listMovimientos: (query) => listMovimientos(db, query),
    // In bounded slices, so it completes at any ledger size (issue 21, item 2).
    verificar: (signal) => verificarPorTramos(db, TRAMOS, signal),
    totalesDeProductos: (productoIds) => totalesDeProductos(db, productoIds),
    registrarStockInicial: (inicial, caller, opts) =>
      registrarStockInicial(db, deps, estado, { inicial, caller, opts }),
    contarProducto: (conteo, caller, opts) => contarProducto(db, deps, estado, { conteo, caller, opts }),
  };
}
