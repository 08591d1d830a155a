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
  type TipoMovimiento,
  type TipoOperacion,
} from '@inventario/platform';
import {
  cambiosDeReverso,
  clave,
  planOperation,
  TIPO_LINEA,
  type Asignacion,
  type BodegaActual,
  type Cambio,
  type Existencia,
  type Movimiento,
  type MovimientoSolicitado,
  type NivelActual,
  type Operacion,
  type Transferencia,
} from '../domain/existencia';
import type { ExistenciaEvents } from '../events/existencia-events';

/**
 * docs/contract.md §10. Every command is one transaction locking, in this
 * order, the deleted-product records (shared), its warehouses and its levels
 * (ascending ids). The warehouse row lock serialises its stock writes, which
 * keeps occupancy and level versions exact under any concurrency; deadlock
 * victims are retried by writeTransaction.
 */
export interface ExistenciaStore {
  /** Sets a level (ASIGNACION). `expectedVersion` 0 asks that there be no level. */
  asignar(asignacion: Asignacion, caller: CallContext, opts: CommandOptions): Promise<{ existencia: Existencia; operacion: Operacion }>;
  /** Writes a level out (RETIRO) and removes it; NotFoundError (reason SIN_EXISTENCIAS) when there is none. */
  retirar(bodegaId: number, productoId: number, caller: CallContext, opts: CommandOptions): Promise<{ cantidadRetirada: number; operacion: Operacion }>;
  registrarMovimiento(movimiento: MovimientoSolicitado, caller: CallContext, opts: CommandOptions): Promise<Operacion>;
  transferir(transferencia: Transferencia, caller: CallContext, opts: CommandOptions): Promise<Operacion>;
  revertir(operacionId: number, comentario: string | null, caller: CallContext, opts: CommandOptions): Promise<Operacion>;
  /** Idempotent; from then on stock writes for the product are refused. */
  retirarProductoEliminado(productoId: number): Promise<void>;
  /** Inside a warehouse delete's transaction, with the warehouse row locked. */
  retirarBodega(trx: Knex.Transaction, bodegaId: number, caller: CallContext, at: Date): Promise<{ niveles: number; unidades: number }>;
  /** Call inside a transaction that locked the warehouse. */
  tieneExistencias(trx: Knex.Transaction, bodegaId: number): Promise<boolean>;

  get(bodegaId: number, productoId: number): Promise<Existencia>;
  list(query: ExistenciaQuery): Promise<{ existencias: Existencia[]; hasMore: boolean }>;
  getOperacion(id: number): Promise<Operacion>;
  listMovimientos(query: MovimientoQuery): Promise<{ movimientos: Movimiento[]; hasMore: boolean }>;
  verificar(): Promise<Verificacion>;
}

export interface CommandOptions {
  expectedVersion?: number;
  claveIdempotencia?: string;
}

export interface ExistenciaQuery {
  pageSize: number;
  after: { bodegaId: number; productoId: number } | null;
  bodegaIds: number[];
  productoIds: number[];
}

export interface MovimientoQuery {
  pageSize: number;
  /** Lines are listed newest first. */
  beforeId: number | null;
  bodegaId?: number;
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
}

export interface ExistenciaStoreDeps {
  events: ExistenciaEvents;
  onCommitted?: () => void;
  idempotencyTtlSeconds: number;
}

/** Per write-out operation, so its event stays far below NATS's message limit. */
export const LINEAS_POR_OPERACION = 500;
export const MAX_DIFERENCIAS = 1000;

interface NivelRow {
  id: number;
  bodega_id: number;
  producto_id: number;
  cantidad: number;
  umbral_minimo: number | null;
  version: number;
  fecha_creacion: Date;
  fecha_actualizacion: Date;
}

const nivelActual = (r: NivelRow): NivelActual => ({
  bodegaId: r.bodega_id,
  productoId: r.producto_id,
  existe: true,
  cantidad: r.cantidad,
  umbralMinimo: r.umbral_minimo,
  version: r.version,
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
  };
}

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

function bodegaNoExiste(id: number): NotFoundError {
  return new NotFoundError(`No existe la bodega con id ${id}`);
}

/** The reason tells it apart from a missing warehouse. */
function sinExistencias(bodegaId: number, productoId: number): NotFoundError {
  return new NotFoundError(`La bodega ${bodegaId} no tiene existencias del producto ${productoId}`, { reason: 'SIN_EXISTENCIAS' });
}

function productoEliminado(productoId: number): FailedPreconditionError {
  return new FailedPreconditionError(`el producto ${productoId} fue eliminado; su stock ya se dio de baja`, {
    reason: 'PRODUCTO_ELIMINADO',
    datos: { productoId },
  });
}

const RESULTS = jsonResultCodec(['fecha', 'fechaCreacion', 'fechaActualizacion']);

export function createExistenciaStore(db: Knex, deps: ExistenciaStoreDeps): ExistenciaStore {
  const { events } = deps;

  function write<T>(caller: CallContext, work: (trx: Knex.Transaction, at: Date) => Promise<T>): Promise<T> {
    return writeTransaction(db, (trx) => work(trx, nowToSecond()), {
      onCommitted: deps.onCommitted,
      idempotency: { key: caller.idempotency, codec: RESULTS, ttlSeconds: deps.idempotencyTtlSeconds },
      signal: caller.signal,
      // requireProductosVivos's shared lock on a missing record is a gap lock only under REPEATABLE READ.
      isolationLevel: 'repeatable read',
    });
  }

  /** The shared (gap) lock makes a concurrent ProductoEliminado wait for this write, or this write wait and see its record. */
  async function requireProductosVivos(trx: Knex.Transaction, productoIds: number[]): Promise<void> {
    const rows = await trx('productos_eliminados').whereIn('producto_id', productoIds).forShare().select<{ producto_id: number }[]>('producto_id');
    if (rows.length > 0) throw productoEliminado(rows[0]!.producto_id);
  }

  async function lockBodegas(trx: Knex.Transaction, ids: number[]): Promise<Map<number, BodegaActual>> {
    const sorted = [...new Set(ids)].sort((a, b) => a - b);
    const rows = await trx('bodegas').whereIn('id', sorted).orderBy('id').forUpdate().select<BodegaActual[]>('id', 'capacidad', 'ocupacion');
    const out = new Map(rows.map((r) => [r.id, { id: r.id, capacidad: r.capacidad, ocupacion: r.ocupacion }]));
    for (const id of sorted) if (!out.has(id)) throw bodegaNoExiste(id);
    return out;
  }

  interface Niveles {
    actuales: Map<string, NivelActual>;
    filas: Map<string, number>;
  }

  async function lockNiveles(trx: Knex.Transaction, pares: [number, number][]): Promise<Niveles> {
    const actuales = new Map<string, NivelActual>();
    const filas = new Map<string, number>();
    if (pares.length === 0) return { actuales, filas };
    const rows = await trx<NivelRow>('existencias').whereIn(['bodega_id', 'producto_id'], pares).orderBy('id').forUpdate();
    for (const r of rows) {
      const k = clave(r.bodega_id, r.producto_id);
      filas.set(k, r.id);
      actuales.set(k, nivelActual(r));
    }
    const faltan = pares.filter(([b, p]) => !actuales.has(clave(b, p)));
    if (faltan.length > 0) {
      // A removed level continues its lines' versions. Locking read: a plain one would use the snapshot of
      // the transaction's first read and miss lines committed while it waited for its locks.
      const previas = await trx('movimientos')
        .whereIn(['bodega_id', 'producto_id'], faltan)
        .groupBy('bodega_id', 'producto_id')
        .forShare()
        .select<{ bodega_id: number; producto_id: number; version: number }[]>('bodega_id', 'producto_id', trx.raw('MAX(version) AS version'));
      const ultima = new Map(previas.map((r) => [clave(r.bodega_id, r.producto_id), Number(r.version)]));
      for (const [b, p] of faltan) {
        actuales.set(clave(b, p), { bodegaId: b, productoId: p, existe: false, cantidad: 0, umbralMinimo: null, version: ultima.get(clave(b, p)) ?? 0 });
      }
    }
    return { actuales, filas };
  }

  /** Version 0 means "no level". */
  function requireVersion(nivel: NivelActual, expectedVersion: number | undefined): void {
    if (expectedVersion === undefined) return;
    const actual = nivel.existe ? nivel.version : 0;
    if (actual !== expectedVersion)
      throw nivel.existe
        ? VersionMismatchError.of(actual, expectedVersion)
        : new VersionMismatchError(null, `no hay existencias del producto ${nivel.productoId} en la bodega ${nivel.bodegaId}`);
  }

  interface OperacionNueva {
    tipo: TipoOperacion;
    comentario: string | null;
    revierteA?: number;
    claveIdempotencia?: string;
  }

  /** Everything it writes must already be locked. */
  async function escribir(
    trx: Knex.Transaction,
    at: Date,
    caller: CallContext,
    nueva: OperacionNueva,
    cambios: Cambio[],
    niveles: Niveles,
    bodegas: Map<number, BodegaActual>,
  ): Promise<Operacion> {
    let operacionId: number;
    // The row goes in before the plan. A reversal that waited on the locks of another reversal of
    // the same operation read that operation before the other committed: the unique revierte_a
    // refuses it as already reversed, where its plan would refuse it for the units the other moved.
    // A refused plan rolls the row back.
    try {
      const [id] = await trx('operaciones').insert({
        tipo: nueva.tipo,
        usuario: caller.usuario,
        comentario: nueva.comentario,
        clave_idempotencia: nueva.claveIdempotencia ?? null,
        revierte_a: nueva.revierteA ?? null,
        fecha: at,
      });
      operacionId = Number(id);
    } catch (err) {
      // Two reversals of one operation at once: the unique revierte_a lets one commit.
      if (nueva.revierteA !== undefined && isDuplicateEntry(err)) throw yaRevertida(nueva.revierteA);
      throw err;
    }
    const plan = planOperation(cambios, niveles.actuales, bodegas);
    await trx('movimientos').insert(
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
    );
    const movimientos = (await trx<MovimientoRow>('movimientos').where({ operacion_id: operacionId }).orderBy('id')).map(toMovimiento);

    // The level after the operation's last line of it.
    const finales = new Map(plan.lineas.map((l) => [clave(l.bodegaId, l.productoId), l]));
    for (const [k, l] of finales) {
      const fila = niveles.filas.get(k);
      if (!l.nivel.existe) {
        if (fila !== undefined) await trx('existencias').where({ id: fila }).delete();
      } else if (fila === undefined) {
        await trx('existencias').insert({
          bodega_id: l.bodegaId,
          producto_id: l.productoId,
          cantidad: l.nivel.cantidad,
          umbral_minimo: l.nivel.umbralMinimo,
          version: l.version,
          fecha_creacion: at,
          fecha_actualizacion: at,
        });
      } else {
        await trx('existencias')
          .where({ id: fila })
          .update({ cantidad: l.nivel.cantidad, umbral_minimo: l.nivel.umbralMinimo, version: l.version, fecha_actualizacion: at });
      }
    }
    for (const [bodegaId, delta] of plan.ocupacion) {
      if (delta !== 0) await trx('bodegas').where({ id: bodegaId }).increment('ocupacion', delta);
      const bodega = bodegas.get(bodegaId)!;
      bodega.ocupacion += delta;
    }
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
      eventos.push(events.umbral(l.umbral === 'BAJO' ? 'StockBajo' : 'StockRepuesto', movimientos[i]!, l.nivel.umbralMinimo, ctx));
    });
    await enqueueEvents(trx, eventos);
    // Later operations in this transaction see the levels this one wrote.
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
    return operacion;
  }

  /** One command on explicit levels: locks, checks the version of the first level when asked, writes. */
  async function comando(
    trx: Knex.Transaction,
    at: Date,
    caller: CallContext,
    nueva: OperacionNueva,
    cambios: Cambio[],
    expectedVersion?: number,
  ): Promise<{ operacion: Operacion; niveles: Niveles }> {
    await requireProductosVivos(trx, [...new Set(cambios.map((c) => c.productoId))]);
    const bodegas = await lockBodegas(
      trx,
      cambios.map((c) => c.bodegaId),
    );
    const niveles = await lockNiveles(
      trx,
      cambios.map((c) => [c.bodegaId, c.productoId]),
    );
    const primero = cambios[0]!;
    requireVersion(niveles.actuales.get(clave(primero.bodegaId, primero.productoId))!, expectedVersion);
    const operacion = await escribir(trx, at, caller, nueva, cambios, niveles, bodegas);
    return { operacion, niveles };
  }

  /** Writes out every level among `rows` (locked), in operations of at most LINEAS_POR_OPERACION lines. */
  async function retirarTodo(
    trx: Knex.Transaction,
    at: Date,
    caller: CallContext,
    tipo: 'PRODUCTO_ELIMINADO' | 'BODEGA_ELIMINADA',
    rows: NivelRow[],
    bodegas: Map<number, BodegaActual>,
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
      const cambios: Cambio[] = parte.map((r) => ({ bodegaId: r.bodega_id, productoId: r.producto_id, tipo: 'SALIDA', motivo: tipo, retirar: true }));
      await escribir(trx, at, caller, { tipo, comentario: null }, cambios, niveles, bodegas);
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
    return new FailedPreconditionError(`la operación ${operacionId} ya fue revertida`, { reason: 'OPERACION_YA_REVERTIDA', datos: { operacionId } });
  }

  return {
    asignar(a, caller, opts) {
      return write(caller, async (trx, at) => {
        const cambio: Cambio = {
          bodegaId: a.bodegaId,
          productoId: a.productoId,
          tipo: 'AJUSTE',
          motivo: 'ASIGNACION',
          fijar: a.cantidad,
          umbralMinimo: a.umbralMinimo,
        };
        const { operacion } = await comando(
          trx,
          at,
          caller,
          { tipo: 'ASIGNACION', comentario: null, claveIdempotencia: opts.claveIdempotencia },
          [cambio],
          opts.expectedVersion,
        );
        const nivel = await trx<NivelRow>('existencias').where({ bodega_id: a.bodegaId, producto_id: a.productoId }).first();
        return { existencia: toExistencia(nivel!), operacion };
      });
    },

    retirar(bodegaId, productoId, caller, opts) {
      return write(caller, async (trx, at) => {
        // A write-out needs no live product: the level of a product deleted a moment ago can still go.
        const bodegas = await lockBodegas(trx, [bodegaId]);
        const niveles = await lockNiveles(trx, [[bodegaId, productoId]]);
        const nivel = niveles.actuales.get(clave(bodegaId, productoId))!;
        requireVersion(nivel, opts.expectedVersion);
        // An error, not an empty answer: nothing was done, so a keyed call records nothing (§9.2).
        if (!nivel.existe) throw sinExistencias(bodegaId, productoId);
        const operacion = await escribir(
          trx,
          at,
          caller,
          { tipo: 'RETIRO', comentario: null, claveIdempotencia: opts.claveIdempotencia },
          [{ bodegaId, productoId, tipo: 'SALIDA', motivo: 'RETIRO', retirar: true }],
          niveles,
          bodegas,
        );
        return { cantidadRetirada: nivel.cantidad, operacion };
      });
    },

    registrarMovimiento(m, caller, opts) {
      return write(caller, async (trx, at) => {
        const base = { bodegaId: m.bodegaId, productoId: m.productoId, tipo: TIPO_LINEA[m.tipo]!, motivo: m.motivo };
        const cambio: Cambio = m.tipo === 'AJUSTE' ? { ...base, fijar: m.cantidad } : { ...base, delta: m.tipo === 'ENTRADA' ? m.cantidad : -m.cantidad };
        const { operacion } = await comando(
          trx,
          at,
          caller,
          { tipo: m.tipo, comentario: m.comentario, claveIdempotencia: opts.claveIdempotencia },
          [cambio],
          opts.expectedVersion,
        );
        return operacion;
      });
    },

    transferir(t, caller, opts) {
      return write(caller, async (trx, at) => {
        const cambios: Cambio[] = [
          { bodegaId: t.origenId, productoId: t.productoId, tipo: 'TRANSFERENCIA', motivo: 'TRANSFERENCIA', delta: -t.cantidad },
          { bodegaId: t.destinoId, productoId: t.productoId, tipo: 'TRANSFERENCIA', motivo: 'TRANSFERENCIA', delta: t.cantidad },
        ];
        const { operacion } = await comando(
          trx,
          at,
          caller,
          { tipo: 'TRANSFERENCIA', comentario: t.comentario, claveIdempotencia: opts.claveIdempotencia },
          cambios,
          opts.expectedVersion,
        );
        return operacion;
      });
    },

    revertir(operacionId, comentario, caller, opts) {
      return write(caller, async (trx, at) => {
        const original = await readOperacion(trx, operacionId);
        const cambios = cambiosDeReverso(original);
        const { operacion } = await comando(
          trx,
          at,
          caller,
          { tipo: 'REVERSO', comentario, revierteA: operacionId, claveIdempotencia: opts.claveIdempotencia },
          cambios,
        );
        return operacion;
      });
    },

    async retirarProductoEliminado(productoId) {
      const caller: CallContext = { usuario: 'system' };
      await write(caller, async (trx, at) => {
        // The record first: from here on stock writes for the product wait for this
        // transaction, and those already running have committed (requireProductosVivos).
        await trx.raw('INSERT IGNORE INTO productos_eliminados (producto_id) VALUES (?)', [productoId]);
        const donde = await trx('existencias').where({ producto_id: productoId }).pluck<number[]>('bodega_id');
        if (donde.length === 0) return;
        // Then the fixed order: its warehouses (those still there), then its levels.
        const rows = await trx('bodegas').whereIn('id', donde).orderBy('id').forUpdate().select<BodegaActual[]>('id', 'capacidad', 'ocupacion');
        const bodegas = new Map(rows.map((r) => [r.id, { ...r }]));
        const niveles = await trx<NivelRow>('existencias')
          .where({ producto_id: productoId })
          .whereIn('bodega_id', [...bodegas.keys()])
          .orderBy('id')
          .forUpdate();
        await retirarTodo(trx, at, caller, 'PRODUCTO_ELIMINADO', niveles, bodegas);
      });
    },

    async retirarBodega(trx, bodegaId, caller, at) {
      const bodegas = await lockBodegas(trx, [bodegaId]);
      const rows = await trx<NivelRow>('existencias').where({ bodega_id: bodegaId }).orderBy('id').forUpdate();
      return retirarTodo(trx, at, caller, 'BODEGA_ELIMINADA', rows, bodegas);
    },

    async tieneExistencias(trx, bodegaId) {
      // A locking read: a plain one reads the snapshot of the transaction's first read (a keyed
      // delete's idempotency lookup), which misses a level committed while the delete waited.
      return (await trx('existencias').where({ bodega_id: bodegaId }).forShare().first('id')) !== undefined;
    },

    async get(bodegaId, productoId) {
      const row = await withDbErrors(() => db<NivelRow>('existencias').where({ bodega_id: bodegaId, producto_id: productoId }).first());
      if (!row) throw sinExistencias(bodegaId, productoId);
      return toExistencia(row);
    },

    async list({ pageSize, after, bodegaIds, productoIds }) {
      const rows = await withDbErrors(() => {
        const q = db<NivelRow>('existencias')
          .orderBy([{ column: 'bodega_id' }, { column: 'producto_id' }])
          .limit(pageSize + 1);
        if (bodegaIds.length > 0) q.whereIn('bodega_id', bodegaIds);
        if (productoIds.length > 0) q.whereIn('producto_id', productoIds);
        if (after) {
          q.whereRaw('(bodega_id, producto_id) > (?, ?)', [after.bodegaId, after.productoId]);
        }
        return q;
      });
      return { existencias: rows.slice(0, pageSize).map(toExistencia), hasMore: rows.length > pageSize };
    },

    getOperacion: (id) => withDbErrors(() => readOperacion(db, id)),

    async listMovimientos(query) {
      const rows = await withDbErrors(() => {
        const q = db<MovimientoRow>('movimientos')
          .orderBy('id', 'desc')
          .limit(query.pageSize + 1);
        if (query.beforeId !== null) q.where('id', '<', query.beforeId);
        if (query.bodegaId !== undefined) q.where('bodega_id', query.bodegaId);
        if (query.productoId !== undefined) q.where('producto_id', query.productoId);
        if (query.tipo !== undefined) q.where('tipo', query.tipo);
        if (query.desde !== undefined) q.where('fecha', '>=', query.desde);
        if (query.hasta !== undefined) q.where('fecha', '<', query.hasta);
        if (query.operacionId !== undefined) q.where('operacion_id', query.operacionId);
        return q;
      });
      return { movimientos: rows.slice(0, query.pageSize).map(toMovimiento), hasMore: rows.length > query.pageSize };
    },

    verificar() {
      // One consistent snapshot: the three sums describe the same instant.
      return withDbErrors(() =>
        db.transaction(
          async (trx) => {
            const diferencias: Diferencia[] = [];
            const [niveles] = (await trx.raw(
              `SELECT e.bodega_id, e.producto_id, e.cantidad AS registrado, COALESCE(SUM(m.cantidad), 0) AS calculado
                 FROM existencias e LEFT JOIN movimientos m ON m.bodega_id = e.bodega_id AND m.producto_id = e.producto_id
                GROUP BY e.id, e.bodega_id, e.producto_id, e.cantidad
               HAVING registrado <> calculado
                LIMIT ?`,
              [MAX_DIFERENCIAS],
            )) as [{ bodega_id: number; producto_id: number; registrado: number; calculado: number | string }[]];
            for (const r of niveles)
              diferencias.push({
                tipo: 'NIVEL',
                bodegaId: r.bodega_id,
                productoId: r.producto_id,
                registrado: Number(r.registrado),
                calculado: Number(r.calculado),
              });
            // Lines of a removed level must sum to zero: its units were written out.
            const [huerfanas] = (await trx.raw(
              `SELECT m.bodega_id, m.producto_id, SUM(m.cantidad) AS calculado
                 FROM movimientos m LEFT JOIN existencias e ON e.bodega_id = m.bodega_id AND e.producto_id = m.producto_id
                WHERE e.id IS NULL
                GROUP BY m.bodega_id, m.producto_id
               HAVING calculado <> 0
                LIMIT ?`,
              [MAX_DIFERENCIAS],
            )) as [{ bodega_id: number; producto_id: number; calculado: number | string }[]];
            for (const r of huerfanas)
              diferencias.push({ tipo: 'NIVEL', bodegaId: r.bodega_id, productoId: r.producto_id, registrado: 0, calculado: Number(r.calculado) });
            const [ocupaciones] = (await trx.raw(
              `SELECT b.id, b.ocupacion AS registrado, COALESCE(SUM(e.cantidad), 0) AS calculado
                 FROM bodegas b LEFT JOIN existencias e ON e.bodega_id = b.id
                GROUP BY b.id, b.ocupacion
               HAVING registrado <> calculado
                LIMIT ?`,
              [MAX_DIFERENCIAS],
            )) as [{ id: number; registrado: number; calculado: number | string }[]];
            for (const r of ocupaciones)
              diferencias.push({ tipo: 'OCUPACION', bodegaId: r.id, productoId: 0, registrado: Number(r.registrado), calculado: Number(r.calculado) });
            const [[cuentas]] = (await trx.raw('SELECT (SELECT COUNT(*) FROM existencias) AS niveles, (SELECT COUNT(*) FROM bodegas) AS bodegas')) as [
              { niveles: number | string; bodegas: number | string }[],
            ];
            return {
              consistente: diferencias.length === 0,
              diferencias: diferencias.slice(0, MAX_DIFERENCIAS),
              nivelesVerificados: Number(cuentas!.niveles),
              bodegasVerificadas: Number(cuentas!.bodegas),
            };
          },
          // Not readOnly: knex writes "SET TRANSACTION ISOLATION LEVEL ... READ ONLY", which MariaDB refuses.
          { isolationLevel: 'repeatable read' },
        ),
      );
    },
  };
}
