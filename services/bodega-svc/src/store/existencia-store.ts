// The stock store's surface (ExistenciaStore) and its factory, which binds the pool, the dependencies and the
// store's state to the module functions of its helper files (existencia-*.ts, productos-conocidos.ts).

import { withDbErrors, type CallContext, type Knex } from '@inventario/platform';
import type { AlertaSobre } from '@inventario/contract';
import type {
  Asignacion,
  Existencia,
  Movimiento,
  MovimientoSolicitado,
  Operacion,
  Transferencia,
} from '../domain/existencia';
import { TRAMOS, verificarPorTramos } from './verificacion-por-tramos';
import { RELOJ_BD } from './reservas-en-niveles';
import type {
  BloqueadosPorReserva,
  CommandOptions,
  ConteoDeProducto,
  ExistenciaQuery,
  ExistenciasPorLoteQuery,
  ExistenciaStoreDeps,
  MovimientoQuery,
  StockInicial,
  StockInicialOptions,
  StockInicialRegistrado,
  TotalDeProducto,
  Verificacion,
} from './existencia-tipos';
import {
  get,
  list,
  listMovimientos,
  listPorLote,
  productosEnBodega,
  readOperacion,
  tieneExistencias,
} from './existencia-lecturas';
import { esProductoConocido, registrarProductoConocido } from './productos-conocidos';
import type { EstadoExistencias } from './existencia-escritura';
import {
  asignar,
  cambiarUmbral,
  registrarMovimiento,
  retirar,
  revertir,
  salidaDeReserva,
  transferir,
} from './existencia-comandos';
import { retirarDeBodega, retirarProductoEliminado } from './existencia-retiros';
import {
  contarProducto,
  leerStockInicial,
  registrarStockInicial,
  totalesDeProductos,
} from './existencia-una-respuesta';

export type { CommandOptions, Diferencia, NivelRow, Verificacion } from './existencia-tipos';

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
   * In a reservation's transaction (reserva-consumo.ts), its holds on these levels already lowered:
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
