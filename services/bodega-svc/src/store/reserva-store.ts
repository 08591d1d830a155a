import {
  enqueueEvents,
  InvalidArgumentError,
  isDuplicateEntry,
  jsonResultCodec,
  NotFoundError,
  VersionMismatchError,
  withDbErrors,
  writeTransaction,
  type CallContext,
  type Knex,
} from '@inventario/platform';
import { bodegaEliminandose } from '../domain/bodega';
import { clave } from '../domain/existencia';
import {
  agregarLineas,
  reservaActivaExistente,
  reservaInsuficiente,
  reservaNoActiva,
  type ConsumoSolicitado,
  type EstadoReserva,
  type Faltante,
  type LimitesReserva,
  type LineaSolicitada,
  type NuevaReserva,
  type Reserva,
} from '../domain/reserva';
import type { WriteContext } from '../events/bodega-events';
import type { ExistenciaStore, NivelRow } from './existencia-store';
import { bloquearBodegas, lecturasDeBodegas, plegarSiHaceFalta, type BodegaBloqueada } from './ocupacion';
import {
  expirarRetencionesVencidas,
  lineaDe,
  sentenciasTerminales,
  terminarReserva,
  type LineaFila,
  type RelojReservas,
} from './reservas-en-niveles';
import { sincronizarAlertasDisponible } from './alertas-disponible';
import { enviarJuntas, filasDe, type Sentencia } from './sentencias';
import {
  bajarReservada,
  consumirLinea,
  insertarConsumos,
  insertarEventos,
  leerLineasDeReserva,
  leerNiveles,
  nivelesDeReserva,
  nuevaVersionDeReserva,
} from './sentencias-fijas';

/**
 * docs/contract.md §13. Every write is one transaction in the stock's lock order: warehouses, levels, the reservation,
 * its lines.
 */
export interface ReservaStore {
  crear(nueva: NuevaReserva, caller: CallContext): Promise<Reserva>;
  get(id: number): Promise<Reserva>;
  list(query: ReservaQuery): Promise<{ reservas: Reserva[]; hasMore: boolean }>;
  consumir(
    id: number,
    consumo: ConsumoSolicitado,
    caller: CallContext,
    opts: ReservaOptions,
  ): Promise<{ reserva: Reserva; operacionId: number | null }>;
  /** A repeat of a release answers the current state and writes nothing. */
  liberar(id: number, caller: CallContext, opts: ReservaOptions): Promise<Reserva>;
  extender(id: number, expiraEn: Date, caller: CallContext, opts: ReservaOptions): Promise<Reserva>;
  /**
   * Records EXPIRADA (with its event) for at most `limite` due reservations, each in its own transaction; answers how
   * many.
   */
  barrer(limite: number): Promise<number>;
  /** What the stock verification adds for holds; a difference is reported, never corrected. */
  verificar(): Promise<DiferenciaReserva[]>;
}

export interface ReservaOptions {
  expectedVersion?: number;
  claveIdempotencia?: string;
}

export interface ReservaQuery {
  pageSize: number;
  /** Newest first. */
  beforeId: number | null;
  referencia?: string;
  estado?: EstadoReserva;
  bodegaId?: number;
  productoId?: number;
  /**
   * A scoped principal's warehouses (docs/contract.md §12.9): only holds whose every line is in one of them (a hold
   * is read only where all its warehouses are visible).
   */
  bodegasVisibles?: number[];
}

export interface DiferenciaReserva {
  tipo: 'RESERVADA' | 'CONSUMIDA' | 'CONSUMO_TRAS_EXPIRACION' | 'REFERENCIA_ACTIVA' | 'TRANSICION';
  reservaId: number | null;
  bodegaId: number;
  productoId: number;
  registrado: number;
  calculado: number;
}

export interface ReservaStoreDeps extends RelojReservas {
  existencias: ExistenciaStore;
  limites: LimitesReserva;
  onCommitted?: () => void;
  idempotencyTtlSeconds: number;
  /** The pool takes several statements in one query: a write's last statements go together (sentencias.ts). */
  sentenciasJuntas?: boolean;
}

interface ReservaFila {
  id: number | string;
  referencia: string;
  estado: EstadoReserva;
  estado_actual: EstadoReserva;
  expira_en: Date;
  version: number;
  usuario: string;
  comentario: string | null;
  fecha_creacion: Date;
  fecha_actualizacion: Date;
}

/** A row read with the database clock of its statement: `ahora` as a Date, `instante` as text to the microsecond. */
interface ReservaFilaAhora extends ReservaFila {
  ahora: Date;
  instante: string;
}

/** The reservation's row and lines, locked, and what its write locked before them (bloquear). */
interface ReservaBloqueada {
  reserva: Reserva;
  ahora: Date;
  instante: string;
  /** Its warehouses, held shared (conBodegas). */
  bodegas: Map<number, BodegaBloqueada>;
  /** Its levels' whole rows, as locked before any change. */
  niveles: NivelRow[];
}

/** A level as a reservation's creation locks it. */
interface NivelLeido {
  bodega_id: number;
  producto_id: number;
  cantidad: number;
  reservada: number;
  alerta_sobre: string;
}

/** A reservation whose referencia is held by a due one, which must be recorded EXPIRADA first. */
class ReferenciaVencida extends Error {
  constructor(readonly reservaId: number) {
    super(`reservation ${reservaId} is due and still holds its referencia`);
    this.name = 'ReferenciaVencida';
  }
}

const RESULTS = jsonResultCodec(['expiraEn', 'fechaCreacion', 'fechaActualizacion']);
const SISTEMA: CallContext = { usuario: 'system' };

/** The state at the database clock: a hold counts only while now < expira_en. */
const columnas = (reloj: string) =>
  `r.*, IF(r.estado = 'ACTIVA' AND r.expira_en <= ${reloj}, 'EXPIRADA', r.estado) AS estado_actual`;

/**
 * READ COMMITTED: a hold's rows change only under its levels' locks, which every write here takes
 * first, so record locks are all it needs. Under REPEATABLE READ the locking scans of the lines of
 * a level also lock the gaps beside them, where concurrent reservations of neighbouring levels
 * insert their lines: 200 multi-line reservations at once deadlocked past writeTransaction's retries.
 */
function write<T>(
  db: Knex,
  deps: ReservaStoreDeps,
  caller: CallContext,
  work: (trx: Knex.Transaction) => Promise<T>,
): Promise<T> {
  return writeTransaction(db, work, {
    onCommitted: deps.onCommitted,
    idempotency: { key: caller.idempotency, codec: RESULTS, ttlSeconds: deps.idempotencyTtlSeconds },
    signal: caller.signal,
    isolationLevel: 'read committed',
  });
}

const enviar = (trx: Knex.Transaction, deps: ReservaStoreDeps, sentencias: readonly Sentencia[]) =>
  enviarJuntas(trx, sentencias, deps.sentenciasJuntas === true);

async function ahora(conn: Knex | Knex.Transaction, reloj: string): Promise<Date> {
  const [rows] = (await conn.raw(`SELECT ${reloj} AS ahora`)) as [{ ahora: Date }[]];
  return rows[0]!.ahora;
}

const sqlDeFila = (reloj: string, id: number, bloquear: boolean) => ({
  sql:
    `SELECT ${columnas(reloj)}, ${reloj} AS ahora, DATE_FORMAT(${reloj}, '%Y-%m-%d %H:%i:%s.%f') AS instante ` +
    `FROM reservas r WHERE r.id = ?${bloquear ? ' FOR UPDATE' : ''}`,
  bindings: [id],
});

/**
 * The row, with the clock of its statement (one statement: the state and "now" agree), and
 * its lines. In a write, locking reads: what the rows are now, not the transaction's first snapshot.
 */
async function leerFila(
  conn: Knex | Knex.Transaction,
  reloj: string,
  id: number,
  { bloquear = false, lineas = true } = {},
): Promise<{ fila: ReservaFilaAhora; lineas: LineaFila[] }> {
  const { sql, bindings } = sqlDeFila(reloj, id, bloquear);
  const [rows] = (await conn.raw(sql, bindings)) as [ReservaFilaAhora[]];
  const fila = rows[0];
  if (!fila) throw NotFoundError.campos([{ campo: 'id', mensaje: `no existe la reserva ${id}` }]);
  if (!lineas) return { fila, lineas: [] };
  const q = conn<LineaFila>('reserva_lineas').where({ reserva_id: id }).orderBy('id');
  return { fila, lineas: await (bloquear ? q.forUpdate() : q) };
}

async function leer(
  conn: Knex | Knex.Transaction,
  reloj: string,
  id: number,
  { bloquear = false } = {},
): Promise<Reserva> {
  const { fila, lineas } = await leerFila(conn, reloj, id, { bloquear });
  return aReserva(fila, lineas);
}

function aReserva(r: ReservaFila, lineas: LineaFila[]): Reserva {
  const activa = r.estado_actual === 'ACTIVA';
  return {
    id: Number(r.id),
    referencia: r.referencia,
    estado: r.estado_actual,
    expiraEn: r.expira_en,
    // A due hold holds nothing, whether or not it has been swept.
    lineas: lineas.map((l) => ({ ...lineaDe(l), retenida: activa ? l.retenida : 0 })),
    version: r.version,
    usuario: r.usuario,
    comentario: r.comentario,
    fechaCreacion: r.fecha_creacion,
    fechaActualizacion: r.fecha_actualizacion,
  };
}

/**
 * Locks the reservation's levels (its warehouses shared first when it will write lines) and then its row and
 * lines. The reservation answered keeps its lines' `retenida` as recorded, whatever its state.
 */
async function bloquear(
  trx: Knex.Transaction,
  deps: ReservaStoreDeps,
  id: number,
  { conBodegas = false } = {},
): Promise<ReservaBloqueada> {
  // Which levels a reservation has never changes after its creation: a plain read says which to lock.
  const pares = await filasDe<{ bodega_id: number; producto_id: number }>(trx, nivelesDeReserva(id));
  const bloqueos = new Map(conBodegas ? pares.map((p) => [p.bodega_id, 'compartido' as const]) : []);
  // Whole rows: a consumption's exit writes these levels without reading them again (issue 24).
  const leerSusNiveles = leerNiveles(pares.map((p) => [p.bodega_id, p.producto_id] as const));
  if (deps.sentenciasJuntas && pares.length > 0) {
    // The same locking reads in the same order, in one query (issue 24).
    const lecturas = bloqueos.size > 0 ? lecturasDeBodegas(bloqueos) : [];
    const partes = [
      ...lecturas.map((l) => l.consulta),
      leerSusNiveles,
      sqlDeFila(deps.reloj, id, true),
      leerLineasDeReserva(id),
    ];
    const [resultados] = (await trx.raw(
      partes.map((p) => p.sql).join(';\n'),
      partes.flatMap((p) => p.bindings),
    )) as [unknown[][]];
    const n = lecturas.length;
    const bodegas = await plegarSiHaceFalta(
      trx,
      lecturas.flatMap((l, i) => l.leidas(resultados[i] as Parameters<typeof l.leidas>[0])),
    );
    const fila = (resultados[n + 1] as ReservaFilaAhora[])[0];
    if (!fila) throw NotFoundError.campos([{ campo: 'id', mensaje: `no existe la reserva ${id}` }]);
    const lineas = resultados[n + 2] as LineaFila[];
    const reserva = { ...aReserva(fila, lineas), lineas: lineas.map(lineaDe) };
    return { reserva, ahora: fila.ahora, instante: fila.instante, bodegas, niveles: resultados[n] as NivelRow[] };
  }
  const bodegas = bloqueos.size > 0 ? await bloquearBodegas(trx, bloqueos) : new Map<number, BodegaBloqueada>();
  const niveles = pares.length > 0 ? await filasDe<NivelRow>(trx, leerSusNiveles) : [];
  const { fila, lineas } = await leerFila(trx, deps.reloj, id, { bloquear: true });
  const reserva = { ...aReserva(fila, lineas), lineas: lineas.map(lineaDe) };
  return { reserva, ahora: fila.ahora, instante: fila.instante, bodegas, niveles };
}

function requireVersion(reserva: Reserva, expected: number | undefined): void {
  if (expected !== undefined && expected !== reserva.version) throw VersionMismatchError.of(reserva.version, expected);
}

const ctxDe = async (trx: Knex.Transaction, reloj: string, caller: CallContext): Promise<WriteContext> => ({
  ...caller,
  at: await ahora(trx, reloj),
});

function evento(
  deps: ReservaStoreDeps,
  tipo: 'ReservaCreada' | 'ReservaConsumida',
  reserva: Reserva,
  ctx: WriteContext,
  operacionId?: number,
) {
  const data = {
    reservaId: reserva.id,
    referencia: reserva.referencia,
    estado: reserva.estado,
    expiraEn: reserva.expiraEn.toISOString(),
    version: reserva.version,
    lineas: reserva.lineas,
    ...(operacionId !== undefined ? { operacionId } : {}),
  };
  return deps.events.evento(tipo, data, ctx);
}

/** One due reservation: EXPIRADA with its event, unless something else ended or extended it first. */
async function expirar(db: Knex, deps: ReservaStoreDeps, id: number): Promise<boolean> {
  return write(db, deps, SISTEMA, async (trx) => {
    const { reserva: r } = await bloquear(trx, deps, id);
    // estado_actual EXPIRADA with estado ACTIVA: due and not yet recorded.
    const [rows] = (await trx.raw(`SELECT estado FROM reservas WHERE id = ? FOR UPDATE`, [id])) as [
      { estado: EstadoReserva }[],
    ];
    if (r.estado !== 'EXPIRADA' || rows[0]!.estado !== 'ACTIVA') return false;
    await terminarReserva(trx, deps, id, 'EXPIRADA', await ctxDe(trx, deps.reloj, SISTEMA));
    return true;
  });
}

/** A new reservation's locks: its warehouses (held shared), then its levels. */
async function bloquearParaCrear(
  trx: Knex.Transaction,
  deps: ReservaStoreDeps,
  lineas: readonly LineaSolicitada[],
): Promise<{ bodegas: Map<number, BodegaBloqueada>; niveles: NivelLeido[] }> {
  const ids = [...new Set(lineas.map((l) => l.bodegaId))];
  const pares = lineas.map((l) => [l.bodegaId, l.productoId] as const);
  // Holds move no units: the warehouses are held shared, for the lock order and to see them exist.
  const bloqueos = new Map(ids.map((id) => [id, 'compartido' as const]));
  const nivelesQ = trx('existencias')
    .whereIn(
      ['bodega_id', 'producto_id'],
      pares.map((p) => [...p]),
    )
    .orderBy('id')
    .forUpdate()
    .select<NivelLeido[]>('bodega_id', 'producto_id', 'cantidad', 'reservada', 'alerta_sobre');
  let bodegas: Map<number, BodegaBloqueada>;
  let niveles: NivelLeido[];
  if (deps.sentenciasJuntas) {
    // Both locking reads, in this order, in one query (issue 24).
    const lecturas = lecturasDeBodegas(bloqueos);
    const partes = [...lecturas.map((l) => l.consulta), nivelesQ.toSQL().toNative()];
    const [resultados] = (await trx.raw(
      partes.map((p) => p.sql).join(';\n'),
      partes.flatMap((p) => p.bindings as Knex.RawBinding[]),
    )) as [unknown[][]];
    bodegas = await plegarSiHaceFalta(
      trx,
      lecturas.flatMap((l, i) => l.leidas(resultados[i] as Parameters<typeof l.leidas>[0])),
    );
    niveles = resultados[lecturas.length] as NivelLeido[];
  } else {
    bodegas = await bloquearBodegas(trx, bloqueos);
    niveles = await nivelesQ;
  }
  return { bodegas, niveles };
}

/**
 * What a new reservation requires of what it locked: every warehouse there and none being deleted, and its units
 * available once its levels' due holds are ended.
 */
async function comprobarDisponible(
  trx: Knex.Transaction,
  reloj: string,
  {
    nueva,
    lineas,
    bodegas,
    niveles,
  }: {
    nueva: NuevaReserva;
    lineas: readonly LineaSolicitada[];
    bodegas: Map<number, BodegaBloqueada>;
    niveles: NivelLeido[];
  },
): Promise<void> {
  const faltan = nueva.lineas.flatMap((l, i) =>
    bodegas.has(l.bodegaId) ? [] : [{ campo: `lineas[${i}].bodegaId`, mensaje: `no existe la bodega ${l.bodegaId}` }],
  );
  if (faltan.length > 0) throw NotFoundError.campos(faltan);
  const marcada = [...bodegas.values()].find((b) => b.eliminando);
  if (marcada) throw bodegaEliminandose(marcada.id);
  // A level that holds nothing (reservada is the sum of its lines' holds) has no due hold to end.
  const liberadas = await expirarRetencionesVencidas(
    trx,
    reloj,
    niveles.filter((n) => n.reservada > 0).map((n) => [n.bodega_id, n.producto_id] as const),
  );
  const porNivel = new Map(niveles.map((n) => [clave(n.bodega_id, n.producto_id), n]));
  const faltantes: Faltante[] = [];
  for (const l of lineas) {
    const k = clave(l.bodegaId, l.productoId);
    const n = porNivel.get(k);
    const disponible = n ? n.cantidad - (n.reservada - (liberadas.get(k) ?? 0)) : 0;
    if (disponible < l.cantidad)
      faltantes.push({ bodegaId: l.bodegaId, productoId: l.productoId, solicitado: l.cantidad, disponible });
  }
  if (faltantes.length > 0) throw reservaInsuficiente(faltantes);
}

/** The reservation's row; answers its id. Its referencia held by a due reservation: ReferenciaVencida. */
async function insertarReserva(
  trx: Knex.Transaction,
  reloj: string,
  { nueva, caller }: { nueva: NuevaReserva; caller: CallContext },
): Promise<number> {
  try {
    const [res] = (await trx.raw(
      `INSERT INTO reservas (referencia, estado, expira_en, version, usuario, comentario, fecha_creacion, ` +
        `fecha_actualizacion)
           VALUES (?, 'ACTIVA', ${reloj} + INTERVAL ? SECOND, 1, ?, ?, ${reloj}, ${reloj})`,
      [nueva.referencia, nueva.ttlSegundos, caller.usuario, nueva.comentario],
    )) as [{ insertId: number }];
    return Number(res.insertId);
  } catch (err) {
    if (!isDuplicateEntry(err)) throw err;
    const [otras] = (await trx.raw(
      `SELECT id, expira_en <= ${reloj} AS vencida FROM reservas WHERE referencia_activa = ? LOCK IN SHARE MODE`,
      [nueva.referencia],
    )) as [{ id: number | string; vencida: number }[]];
    const otra = otras[0];
    if (otra && Number(otra.vencida) === 1) throw new ReferenciaVencida(Number(otra.id));
    throw reservaActivaExistente(nueva.referencia, Number(otra?.id ?? 0));
  }
}

function crearUna(
  db: Knex,
  deps: ReservaStoreDeps,
  { nueva, caller }: { nueva: NuevaReserva; caller: CallContext },
): Promise<Reserva> {
  return write(db, deps, caller, async (trx) => {
    const lineas = agregarLineas(nueva.lineas);
    const { bodegas, niveles } = await bloquearParaCrear(trx, deps, lineas);
    await comprobarDisponible(trx, deps.reloj, { nueva, lineas, bodegas, niveles });
    const id = await insertarReserva(trx, deps.reloj, { nueva, caller });
    // The holds on the levels, then the lines (whose first id the INSERT answers), in one round trip when the
    // pool allows.
    let primeraLinea = 0;
    // A line as inserted: it holds all its units, none consumed yet.
    const nuevaLinea = (l: (typeof lineas)[number]) => ({
      reserva_id: id,
      bodega_id: l.bodegaId,
      producto_id: l.productoId,
      cantidad: l.cantidad,
      consumida: 0,
      retenida: l.cantidad,
    });
    await enviar(trx, deps, [
      ...lineas.map((l) => ({
        sentencia: trx('existencias')
          .where({ bodega_id: l.bodegaId, producto_id: l.productoId })
          .increment('reservada', l.cantidad),
      })),
      {
        sentencia: trx('reserva_lineas').insert(lineas.map(nuevaLinea)),
        comprobar: (_filas: number, insertId: number) => (primeraLinea = insertId),
      },
    ]);
    // One line: its id is the insert's and the rest is what was written. Several: read back.
    const { fila, lineas: filas } = await leerFila(trx, deps.reloj, id, { lineas: lineas.length > 1 });
    const escritas: LineaFila[] =
      lineas.length > 1 ? filas : lineas.map((l) => ({ id: primeraLinea, ...nuevaLinea(l) }));
    const reserva = aReserva(fila, escritas);
    const ctx: WriteContext = { ...caller, at: fila.ahora };
    // A hold lowers `disponible`: a threshold watching it may be reached (§13.9); only such levels are read.
    const vigilan = niveles
      .filter((n) => n.alerta_sobre !== 'CANTIDAD')
      .map((n) => [n.bodega_id, n.producto_id] as const);
    await sincronizarAlertasDisponible(trx, deps.umbrales, vigilan, ctx, null);
    await enqueueEvents(trx, [evento(deps, 'ReservaCreada', reserva, ctx)]);
    return reserva;
  });
}

async function crear(
  db: Knex,
  deps: ReservaStoreDeps,
  { nueva, caller }: { nueva: NuevaReserva; caller: CallContext },
): Promise<Reserva> {
  try {
    return await crearUna(db, deps, { nueva, caller });
  } catch (err) {
    if (!(err instanceof ReferenciaVencida)) throw err;
    // A due reservation of the referencia is recorded EXPIRADA first, so it does not block the new one. Looked
    // for only when the referencia is taken (issue 24: no read ahead of every reservation).
    await expirar(db, deps, err.reservaId);
  }
  try {
    return await crearUna(db, deps, { nueva, caller });
  } catch (err) {
    // Taken again, by one that fell due meanwhile: the referencia's reservation is still active as far as
    // this request goes.
    if (err instanceof ReferenciaVencida) throw reservaActivaExistente(nueva.referencia, err.reservaId);
    throw err;
  }
}

async function list(db: Knex, reloj: string, query: ReservaQuery): Promise<{ reservas: Reserva[]; hasMore: boolean }> {
  const rows = await withDbErrors(async () => {
    const q = db
      .from('reservas as r')
      .select(db.raw(columnas(reloj)))
      .orderBy('r.id', 'desc')
      .limit(query.pageSize + 1);
    if (query.beforeId !== null) q.where('r.id', '<', query.beforeId);
    if (query.referencia !== undefined) q.where('r.referencia', query.referencia);
    if (query.estado === 'ACTIVA') q.where('r.estado', 'ACTIVA').whereRaw(`r.expira_en > ${reloj}`);
    else if (query.estado === 'EXPIRADA')
      q.whereRaw(`(r.estado = 'EXPIRADA' OR (r.estado = 'ACTIVA' AND r.expira_en <= ${reloj}))`);
    else if (query.estado !== undefined) q.where('r.estado', query.estado);
    if (query.bodegaId !== undefined || query.productoId !== undefined) {
      q.whereExists(function () {
        this.from('reserva_lineas as l').whereRaw('l.reserva_id = r.id');
        if (query.bodegaId !== undefined) this.where('l.bodega_id', query.bodegaId);
        if (query.productoId !== undefined) this.where('l.producto_id', query.productoId);
      });
    }
    const visibles = query.bodegasVisibles;
    if (visibles !== undefined) {
      q.whereNotExists(function () {
        this.from('reserva_lineas as v').whereRaw('v.reserva_id = r.id').whereNotIn('v.bodega_id', visibles);
      });
    }
    return (await q) as ReservaFila[];
  });
  const page = rows.slice(0, query.pageSize);
  const lineas =
    page.length === 0
      ? []
      : await withDbErrors(() =>
          db<LineaFila>('reserva_lineas')
            .whereIn(
              'reserva_id',
              page.map((r) => r.id),
            )
            .orderBy('id'),
        );
  return {
    reservas: page.map((r) =>
      aReserva(
        r,
        lineas.filter((l) => Number(l.reserva_id) === Number(r.id)),
      ),
    ),
    hasMore: rows.length > query.pageSize,
  };
}

/** A reservation's line and the units a consumption takes of it. */
interface Toma {
  linea: Reserva['lineas'][number];
  cantidad: number;
}

/** The lines a consumption takes (all that is held when it names none), each within what the line holds. */
function lineasATomar(id: number, reserva: Reserva, consumo: ConsumoSolicitado): Toma[] {
  const pedidas = new Map<number, number>();
  if (consumo.lineas.length === 0) for (const l of reserva.lineas) pedidas.set(l.id, l.retenida);
  else for (const l of consumo.lineas) pedidas.set(l.lineaId, (pedidas.get(l.lineaId) ?? 0) + l.cantidad);
  const errores: { campo: string; mensaje: string }[] = [];
  for (const [lineaId, cantidad] of pedidas) {
    const linea = reserva.lineas.find((l) => l.id === lineaId);
    if (!linea) errores.push({ campo: 'lineas', mensaje: `la línea ${lineaId} no es de la reserva ${id}` });
    else if (cantidad > linea.retenida)
      errores.push({
        campo: 'lineas',
        mensaje: `la línea ${lineaId} retiene ${linea.retenida} unidades, se consumen ${cantidad}`,
      });
  }
  if (errores.length > 0) throw new InvalidArgumentError(errores);
  return reserva.lineas
    .filter((l) => (pedidas.get(l.id) ?? 0) > 0)
    .map((l) => ({ linea: l, cantidad: pedidas.get(l.id)! }));
}

/**
 * A consumption's units out: its lines' holds lowered, then the exit (one SALIDA operation); answers the operation
 * and the INSERT of its consumptions, not sent.
 */
async function salidaDelConsumo(
  trx: Knex.Transaction,
  deps: ReservaStoreDeps,
  {
    id,
    consumo,
    caller,
    ctx,
    bloqueada,
    tomar,
  }: {
    id: number;
    consumo: ConsumoSolicitado;
    caller: CallContext;
    ctx: WriteContext;
    bloqueada: ReservaBloqueada;
    tomar: Toma[];
  },
): Promise<{ operacionId: number; consumos: Sentencia }> {
  const { reserva, instante } = bloqueada;
  // The hold goes first, so the exit finds the units it takes no longer held.
  await enviar(
    trx,
    deps,
    tomar.flatMap(({ linea, cantidad }) => [
      { sentencia: consumirLinea(linea.id, linea.retenida - cantidad, linea.consumida + cantidad) },
      { sentencia: bajarReservada(linea.bodegaId, linea.productoId, cantidad) },
    ]),
  );
  const bajadas = new Map<string, number>();
  for (const { linea, cantidad } of tomar) {
    const k = clave(linea.bodegaId, linea.productoId);
    bajadas.set(k, (bajadas.get(k) ?? 0) + cantidad);
  }
  const operacion = await deps.existencias.salidaDeReserva(
    trx,
    ctx.at,
    caller,
    tomar.map(({ linea, cantidad }) => ({ bodegaId: linea.bodegaId, productoId: linea.productoId, cantidad })),
    consumo.comentario ?? `consumo de la reserva ${id} (${reserva.referencia})`,
    {
      bodegas: bloqueada.bodegas,
      // The levels as this write left them: their holds lowered by what it consumes.
      niveles: bloqueada.niveles.map((n) => ({
        ...n,
        reservada:
          n.reservada === undefined ? undefined : n.reservada - (bajadas.get(clave(n.bodega_id, n.producto_id)) ?? 0),
      })),
    },
  );
  return {
    operacionId: operacion.id,
    consumos: {
      sentencia: insertarConsumos(
        tomar.map(({ linea, cantidad }) => ({
          reserva_id: id,
          linea_id: linea.id,
          operacion_id: operacion.id,
          cantidad,
          fecha: instante,
        })),
      ),
    },
  };
}

function consumir(
  db: Knex,
  deps: ReservaStoreDeps,
  { id, consumo, caller, opts }: { id: number; consumo: ConsumoSolicitado; caller: CallContext; opts: ReservaOptions },
): Promise<{ reserva: Reserva; operacionId: number | null }> {
  return write(db, deps, caller, async (trx) => {
    const bloqueada = await bloquear(trx, deps, id, { conBodegas: true });
    const { reserva } = bloqueada;
    requireVersion(reserva, opts.expectedVersion);
    // From the exact instant of expiry, swept or not (the state is read at the clock, under the row's lock).
    if (reserva.estado !== 'ACTIVA') throw reservaNoActiva(id, reserva.estado);
    const tomar = lineasATomar(id, reserva, consumo);
    // One instant for the whole write, the one its state was judged at (issue 24: no read of the clock of its
    // own): its consumptions are dated before the expiry that instant was before.
    const ctx: WriteContext = { ...caller, at: bloqueada.ahora };
    const { instante } = bloqueada;
    let operacionId: number | null = null;
    // What this write leaves in the database, which it answers without reading it back (issue 24).
    const tomadas = new Map(tomar.map(({ linea, cantidad }) => [linea.id, cantidad]));
    const lineasDespues = reserva.lineas.map((l) => {
      const cantidad = tomadas.get(l.id) ?? 0;
      return { ...l, retenida: l.retenida - cantidad, consumida: l.consumida + cantidad };
    });
    const ultimas: Sentencia[] = [];
    if (tomar.length > 0) {
      const salida = await salidaDelConsumo(trx, deps, { id, consumo, caller, ctx, bloqueada, tomar });
      operacionId = salida.operacionId;
      ultimas.push(salida.consumos);
    }
    const quedan = lineasDespues.reduce((s, l) => s + l.retenida, 0);
    const termina = quedan === 0 || consumo.liberarResto;
    if (termina && quedan > 0) {
      // The rest let go: the one terminal transition lets go of the holds left and judges their alerts.
      await enviar(trx, deps, ultimas.splice(0));
      await terminarReserva(trx, deps, id, 'CONSUMIDA', ctx, null, instante);
    } else if (termina) {
      // Whole: nothing is held any more, so the transition moves no hold and no alert (the exit judged them).
      ultimas.push(...sentenciasTerminales(trx, deps, id, 'CONSUMIDA', instante));
    } else {
      ultimas.push({ sentencia: nuevaVersionDeReserva(id, instante) });
    }
    const despues: Reserva = {
      ...reserva,
      estado: termina ? 'CONSUMIDA' : 'ACTIVA',
      version: reserva.version + 1,
      fechaActualizacion: bloqueada.ahora,
      // An ended hold holds nothing.
      lineas: lineasDespues.map((l) => (termina ? { ...l, retenida: 0 } : l)),
    };
    // This consumption's event announces it, and the terminal transition when there is one.
    const enCola = insertarEventos([evento(deps, 'ReservaConsumida', despues, ctx, operacionId ?? undefined)]);
    if (enCola) ultimas.push({ sentencia: enCola });
    await enviar(trx, deps, ultimas);
    return { reserva: despues, operacionId };
  });
}

function liberar(
  db: Knex,
  deps: ReservaStoreDeps,
  { id, caller, opts }: { id: number; caller: CallContext; opts: ReservaOptions },
): Promise<Reserva> {
  return write(db, deps, caller, async (trx) => {
    const { reserva } = await bloquear(trx, deps, id);
    // A repeat answers the current state without a second event.
    if (reserva.estado === 'LIBERADA') return leer(trx, deps.reloj, id, { bloquear: true });
    if (reserva.estado !== 'ACTIVA') throw reservaNoActiva(id, reserva.estado);
    requireVersion(reserva, opts.expectedVersion);
    await terminarReserva(trx, deps, id, 'LIBERADA', await ctxDe(trx, deps.reloj, caller));
    return leer(trx, deps.reloj, id, { bloquear: true });
  });
}

function extender(
  db: Knex,
  deps: ReservaStoreDeps,
  { id, expiraEn, caller, opts }: { id: number; expiraEn: Date; caller: CallContext; opts: ReservaOptions },
): Promise<Reserva> {
  const { reloj } = deps;
  return write(db, deps, caller, async (trx) => {
    // Only the row: extending moves no units, and a write expiring the holds locks it after their levels.
    const reserva = await leer(trx, reloj, id, { bloquear: true });
    requireVersion(reserva, opts.expectedVersion);
    if (reserva.estado !== 'ACTIVA') throw reservaNoActiva(id, reserva.estado);
    const [rows] = (await trx.raw(
      `SELECT ? > expira_en AS despues, ? <= ${reloj} + INTERVAL ? SECOND AS dentro FROM reservas WHERE id = ?`,
      [expiraEn, expiraEn, deps.limites.ttlMaximoSegundos, id],
    )) as [{ despues: number; dentro: number }[]];
    if (!Number(rows[0]!.despues))
      throw InvalidArgumentError.field('expiraEn', 'debe ser posterior a la expiración actual');
    if (!Number(rows[0]!.dentro))
      throw InvalidArgumentError.field(
        'expiraEn',
        `no puede pasar de ${deps.limites.ttlMaximoSegundos} segundos desde ahora`,
      );
    await trx.raw(
      `UPDATE reservas SET expira_en = ?, version = version + 1, fecha_actualizacion = ${reloj} WHERE id = ?`,
      [expiraEn, id],
    );
    return leer(trx, reloj, id, { bloquear: true });
  });
}

async function barrer(db: Knex, deps: ReservaStoreDeps, limite: number): Promise<number> {
  const { reloj } = deps;
  const [rows] = (await withDbErrors(() =>
    db.raw(`SELECT id FROM reservas WHERE estado = 'ACTIVA' AND expira_en <= ${reloj} ORDER BY expira_en, id LIMIT ?`, [
      limite,
    ]),
  )) as [{ id: number | string }[]];
  let n = 0;
  for (const r of rows) if (await expirar(db, deps, Number(r.id))) n += 1;
  return n;
}

async function verificar(db: Knex): Promise<DiferenciaReserva[]> {
  const consultas: [DiferenciaReserva['tipo'], string][] = [
    [
      'RESERVADA',
      `SELECT NULL AS reserva_id, e.bodega_id, e.producto_id, e.reservada AS registrado, ` +
        `COALESCE(SUM(l.retenida), 0) AS calculado
         FROM existencias e LEFT JOIN reserva_lineas l ON l.bodega_id = e.bodega_id AND ` +
        `l.producto_id = e.producto_id
         GROUP BY e.id HAVING registrado <> calculado`,
    ],
    [
      'CONSUMIDA',
      `SELECT l.reserva_id, l.bodega_id, l.producto_id, l.consumida AS registrado, ` +
        `COALESCE(SUM(c.cantidad), 0) AS calculado
         FROM reserva_lineas l LEFT JOIN reserva_consumos c ON c.linea_id = l.id GROUP BY l.id HAVING ` +
        `registrado <> calculado`,
    ],
    [
      'CONSUMO_TRAS_EXPIRACION',
      `SELECT c.reserva_id, l.bodega_id, l.producto_id, c.cantidad AS registrado, 0 AS calculado
         FROM reserva_consumos c JOIN reservas r ON r.id = c.reserva_id JOIN reserva_lineas l ON l.id = ` +
        `c.linea_id WHERE c.fecha >= r.expira_en`,
    ],
    [
      'REFERENCIA_ACTIVA',
      `SELECT MIN(r.id) AS reserva_id, 0 AS bodega_id, 0 AS producto_id, COUNT(*) AS registrado, 1 AS calculado
         FROM reservas r WHERE r.estado = 'ACTIVA' GROUP BY r.referencia HAVING COUNT(*) > 1`,
    ],
    [
      'TRANSICION',
      `SELECT r.id AS reserva_id, 0 AS bodega_id, 0 AS producto_id, COUNT(t.reserva_id) AS registrado, ` +
        `IF(r.estado = 'ACTIVA', 0, 1) AS calculado
         FROM reservas r LEFT JOIN reserva_terminales t ON t.reserva_id = r.id AND t.estado = r.estado
         GROUP BY r.id HAVING registrado <> calculado
       UNION ALL
       SELECT l.reserva_id, l.bodega_id, l.producto_id, l.retenida AS registrado, 0 AS calculado
         FROM reserva_lineas l JOIN reservas r ON r.id = l.reserva_id WHERE r.estado <> 'ACTIVA' ` +
        `AND l.retenida > 0`,
    ],
  ];
  const out: DiferenciaReserva[] = [];
  for (const [tipo, sql] of consultas) {
    const [rows] = (await withDbErrors(() => db.raw(`${sql} LIMIT 100`))) as [
      {
        reserva_id: number | string | null;
        bodega_id: number;
        producto_id: number;
        registrado: number | string;
        calculado: number | string;
      }[],
    ];
    for (const r of rows) {
      out.push({
        tipo,
        reservaId: r.reserva_id === null ? null : Number(r.reserva_id),
        bodegaId: Number(r.bodega_id),
        productoId: Number(r.producto_id),
        registrado: Number(r.registrado),
        calculado: Number(r.calculado),
      });
    }
  }
  return out;
}

export function createReservaStore(db: Knex, deps: ReservaStoreDeps): ReservaStore {
  return {
    crear: (nueva, caller) => crear(db, deps, { nueva, caller }),
    get: (id) => withDbErrors(() => leer(db, deps.reloj, id)),
    list: (query) => list(db, deps.reloj, query),
    consumir: (id, consumo, caller, opts) => consumir(db, deps, { id, consumo, caller, opts }),
    liberar: (id, caller, opts) => liberar(db, deps, { id, caller, opts }),
    extender: (id, expiraEn, caller, opts) => extender(db, deps, { id, expiraEn, caller, opts }),
    barrer: (limite) => barrer(db, deps, limite),
    verificar: () => verificar(db),
  };
}
