import { formatLocalUtc } from '@inventario/platform';
import {
  ALERTA_SOBRE_NAMES,
  AsignarExistenciaRequest,
  CambiarUmbralMinimoRequest,
  ListExistenciasRequest,
  ListMovimientosRequest,
  RegistrarMovimientoRequest,
  RetirarExistenciaRequest,
  RevertirOperacionRequest,
  TipoMovimiento as TipoMovimientoProto,
  TransferirRequest,
  type AsignarExistenciaResponse,
  type CambiarUmbralMinimoResponse,
  type ExistenciaServiceClient,
  type GetExistenciaResponse,
  type GetExistenciasDeProductoResponse,
  type GetTotalesDeProductosResponse,
  type GetOperacionResponse,
  type ListExistenciasResponse,
  type ListMovimientosResponse,
  type ListExistenciasPorLoteResponse,
  type ListProductosDeBodegaResponse,
  type RegistrarMovimientoResponse,
  type RetirarExistenciaResponse,
  type RevertirOperacionResponse,
  type TransferirResponse,
  type VerificarExistenciasResponse,
} from '@inventario/proto';
import type {
  AlertaSobre,
  Existencia,
  ExistenciaFilter,
  MovimientoFilter,
  MovimientoInput,
  ProductoDeBodega,
  TransferenciaInput,
  VerificacionExistencias,
} from '@inventario/contract';
import type { AsignacionResult, Caller, Movimiento, Operacion, WriteOptions } from '../inventario/model';
import {
  diferenciaFromProto,
  existenciaFromProto,
  motivoMovimientoCodec,
  movimientoFromProto,
  operacionFromProto,
  required,
  nivelWriteFields,
  safeWriteFields,
  tipoMovimientoCodec,
} from './mapping';
import type { UnaryCall } from './unary-call';

/** A page of stock levels, ordered by (warehouse, product). */
export interface ExistenciaPage {
  existencias: Existencia[];
  /** '' on the last page. */
  nextPageToken: string;
}

/** A page of ledger lines, newest first. */
export interface MovimientoPage {
  movimientos: Movimiento[];
  /** '' on the last page. */
  nextPageToken: string;
}

/** What RetirarExistencia did. */
export interface RetiroDeExistencia {
  /** False when the warehouse held no level of the product (nothing written). */
  existia: boolean;
  cantidadRetirada: number;
  /** The RETIRO operation; null when there was no level. */
  operacion: Operacion | null;
  /** Whether the product's bodegaId named the warehouse and bodega-svc had producto-svc clear it. */
  desasignado: boolean;
}

/**
 * bodega-svc's ExistenciaService as the BFF uses it, in model types. Writes
 * take the request's WriteOptions: its idempotency key, and for the writes
 * of one level its `ifMatch` (nivelWriteFields).
 */
export interface ExistenciaClient {
  asignar(
    caller: Caller,
    request: { bodegaId: number; productoId: number; cantidad: number; umbralMinimo?: number | null },
    write?: WriteOptions,
  ): Promise<AsignacionResult>;
  /**
   * The older gateway's removal: the level written out and the product's bodegaId cleared if it names the warehouse
   * (one call).
   */
  retirar(caller: Caller, bodegaId: number, productoId: number, write?: WriteOptions): Promise<RetiroDeExistencia>;
  /** The threshold of an existing level (null removes it); no line. */
  cambiarUmbral(
    caller: Caller,
    request: { bodegaId: number; productoId: number; umbralMinimo: number | null; alertaSobre?: AlertaSobre },
    write?: WriteOptions,
  ): Promise<Existencia>;
  registrarMovimiento(
    caller: Caller,
    bodegaId: number,
    input: MovimientoInput,
    write?: WriteOptions,
  ): Promise<Operacion>;
  transferir(caller: Caller, input: TransferenciaInput, write?: WriteOptions): Promise<Operacion>;
  revertir(
    caller: Caller,
    operacionId: number,
    comentario: string | null | undefined,
    write?: WriteOptions,
  ): Promise<Operacion>;
  get(caller: Caller, bodegaId: number, productoId: number): Promise<Existencia>;
  list(caller: Caller, request: ExistenciaFilter & { pageSize: number; pageToken?: string }): Promise<ExistenciaPage>;
  getOperacion(caller: Caller, id: number): Promise<Operacion>;
  listMovimientos(
    caller: Caller,
    request: MovimientoFilter & { pageSize: number; pageToken?: string },
  ): Promise<MovimientoPage>;
  verificar(caller: Caller): Promise<VerificacionExistencias>;
  /** Each product's ledger total (docs/contract.md §10.6), by id; one call per TOTALES_POR_LLAMADA ids. */
  totales(caller: Caller, productoIds: readonly number[]): Promise<Map<number, TotalDeProducto>>;
  /** A product's levels, their sum and its unlocated units; NotFoundError when producto-svc does not have it. */
  deProducto(
    caller: Caller,
    productoId: number,
  ): Promise<{ porBodega: Existencia[]; total: number; sinUbicar: number }>;
  /**
   * A page of the levels of a batch of warehouses or of products (one of the two), at most `perParent` of each
   * (0: all) whose other id is greater than `afterId`, in (warehouse, product) order, counted by bodega-svc.
   */
  porLote(
    caller: Caller,
    request: {
      parents: { bodegaIds: readonly number[] } | { productoIds: readonly number[] };
      perParent: number;
      afterId?: number;
      pageSize: number;
      pageToken?: string;
    },
  ): Promise<ExistenciaPage>;
  /** A page of a warehouse's products, assigned or stocked, as bodega-svc merges them; nextPageToken '' on the last. */
  productosDeBodega(
    caller: Caller,
    bodegaId: number,
    page: { pageSize: number; pageToken?: string },
  ): Promise<{ productos: ProductoDeBodega[]; nextPageToken: string }>;
}

/** A product's units: every level, the unlocated one included (`sinUbicar`). */
export interface TotalDeProducto {
  total: number;
  sinUbicar: number;
}

/** bodega-svc's bound on one GetTotalesDeProductos (its id filters'). */
export const TOTALES_POR_LLAMADA = 1000;

/**
 * Calls go through bodega-svc's UnaryCall: its channel, breaker and deadline. One method per RPC of the stock
 * service: its length is that list of calls, the one place the BFF's calls to it start.
 */
export function createExistenciaClient(client: ExistenciaServiceClient, call: UnaryCall): ExistenciaClient {
  return {
    async asignar(caller, request, write = {}) {
      const message = AsignarExistenciaRequest.fromPartial({
        bodegaId: request.bodegaId,
        productoId: request.productoId,
        cantidad: request.cantidad,
        umbralMinimo: request.umbralMinimo ?? undefined,
        // null clears the threshold; absent keeps it.
        quitarUmbralMinimo: request.umbralMinimo === null ? true : undefined,
        ...nivelWriteFields(write),
        // A public assignment sets an existing level only under its version (issue 21, item 11).
        versionRequerida: true,
      });
      const res = await call<AsignarExistenciaResponse>(
        caller,
        (md, o, cb) => client.asignarExistencia(message, md, o, cb),
        write.onReplay,
      );
      return {
        existencia: existenciaFromProto(required(res.existencia, 'existencia')),
        operacion: operacionFromProto(required(res.operacion, 'operacion')),
      };
    },
    async cambiarUmbral(caller, { bodegaId, productoId, umbralMinimo, alertaSobre }, write = {}) {
      const message = CambiarUmbralMinimoRequest.fromPartial({
        bodegaId,
        productoId,
        ...(umbralMinimo === null ? { quitarUmbralMinimo: true } : { umbralMinimo }),
        ...(alertaSobre === undefined ? {} : { alertaSobre: ALERTA_SOBRE_NAMES.value(alertaSobre) }),
        ...nivelWriteFields(write),
      });
      const res = await call<CambiarUmbralMinimoResponse>(
        caller,
        (md, o, cb) => client.cambiarUmbralMinimo(message, md, o, cb),
        write.onReplay,
      );
      return existenciaFromProto(required(res.existencia, 'existencia'));
    },
    async retirar(caller, bodegaId, productoId, write = {}) {
      // The product out of the warehouse altogether: its level and, in producto-svc, its bodegaId.
      const message = RetirarExistenciaRequest.fromPartial({
        bodegaId,
        productoId,
        ...nivelWriteFields(write),
        desasignar: true,
      });
      const res = await call<RetirarExistenciaResponse>(
        caller,
        (md, o, cb) => client.retirarExistencia(message, md, o, cb),
        write.onReplay,
      );
      return {
        existia: res.existia,
        cantidadRetirada: res.cantidadRetirada,
        operacion: res.operacion ? operacionFromProto(res.operacion) : null,
        desasignado: res.desasignado,
      };
    },
    async registrarMovimiento(caller, bodegaId, input, write = {}) {
      const message = RegistrarMovimientoRequest.fromPartial({
        bodegaId,
        productoId: input.productoId,
        tipo: tipoMovimientoCodec.toProto(input.tipo),
        cantidad: input.cantidad,
        // Absent: UNSPECIFIED, which the service reads as the tipo's default.
        motivo: input.motivo === undefined ? undefined : motivoMovimientoCodec.toProto(input.motivo),
        comentario: input.comentario ?? undefined,
        ...nivelWriteFields(write),
      });
      const res = await call<RegistrarMovimientoResponse>(
        caller,
        (md, o, cb) => client.registrarMovimiento(message, md, o, cb),
        write.onReplay,
      );
      return operacionFromProto(required(res.operacion, 'operacion'));
    },
    async transferir(caller, input, write = {}) {
      const message = TransferirRequest.fromPartial({
        productoId: input.productoId,
        origenId: input.origenId,
        destinoId: input.destinoId,
        cantidad: input.cantidad,
        comentario: input.comentario ?? undefined,
        requestId: safeWriteFields(write).requestId,
      });
      const res = await call<TransferirResponse>(
        caller,
        (md, o, cb) => client.transferir(message, md, o, cb),
        write.onReplay,
      );
      return operacionFromProto(required(res.operacion, 'operacion'));
    },
    async revertir(caller, operacionId, comentario, write = {}) {
      const message = RevertirOperacionRequest.fromPartial({
        operacionId,
        comentario: comentario ?? undefined,
        requestId: safeWriteFields(write).requestId,
      });
      const res = await call<RevertirOperacionResponse>(
        caller,
        (md, o, cb) => client.revertirOperacion(message, md, o, cb),
        write.onReplay,
      );
      return operacionFromProto(required(res.operacion, 'operacion'));
    },
    async get(caller, bodegaId, productoId) {
      const res = await call<GetExistenciaResponse>(caller, (md, o, cb) =>
        client.getExistencia({ bodegaId, productoId }, md, o, cb),
      );
      return existenciaFromProto(required(res.existencia, 'existencia'));
    },
    async list(caller, request) {
      const message = ListExistenciasRequest.fromPartial({
        pageSize: request.pageSize,
        pageToken: request.pageToken ?? '',
        bodegaIds: [...(request.bodegaIds ?? [])],
        productoIds: [...(request.productoIds ?? [])],
      });
      const res = await call<ListExistenciasResponse>(caller, (md, o, cb) =>
        client.listExistencias(message, md, o, cb),
      );
      return { existencias: res.existencias.map(existenciaFromProto), nextPageToken: res.nextPageToken };
    },
    async getOperacion(caller, id) {
      const res = await call<GetOperacionResponse>(caller, (md, o, cb) => client.getOperacion({ id }, md, o, cb));
      return operacionFromProto(required(res.operacion, 'operacion'));
    },
    async listMovimientos(caller, request) {
      const message = ListMovimientosRequest.fromPartial({
        pageSize: request.pageSize,
        pageToken: request.pageToken ?? '',
        bodegaId: request.bodegaId,
        productoId: request.productoId,
        tipo:
          request.tipo === undefined
            ? TipoMovimientoProto.TIPO_MOVIMIENTO_UNSPECIFIED
            : tipoMovimientoCodec.toProto(request.tipo),
        desde: request.desde,
        hasta: request.hasta,
        operacionId: request.operacionId,
      });
      const res = await call<ListMovimientosResponse>(caller, (md, o, cb) =>
        client.listMovimientos(message, md, o, cb),
      );
      return { movimientos: res.movimientos.map(movimientoFromProto), nextPageToken: res.nextPageToken };
    },
    async verificar(caller) {
      const res = await call<VerificarExistenciasResponse>(caller, (md, o, cb) =>
        client.verificarExistencias({}, md, o, cb),
      );
      return {
        consistente: res.consistente,
        diferencias: res.diferencias.map(diferenciaFromProto),
        nivelesVerificados: res.nivelesVerificados,
        bodegasVerificadas: res.bodegasVerificadas,
        diferenciasReservas: res.diferenciasReservas.map((d) => ({
          tipo: d.tipo,
          reservaId: d.reservaId === 0 ? null : d.reservaId,
          bodegaId: d.bodegaId === 0 ? null : d.bodegaId,
          productoId: d.productoId === 0 ? null : d.productoId,
          registrado: Number(d.registrado),
          calculado: Number(d.calculado),
        })),
        // Absent from a bodega-svc that verified on the call itself.
        ...(res.verificadoEn ? { verificadoEn: formatLocalUtc(res.verificadoEn) } : {}),
      };
    },

    async totales(caller, productoIds) {
      const ids = [...new Set(productoIds)];
      const out = new Map<number, TotalDeProducto>();
      const chunks: number[][] = [];
      for (let i = 0; i < ids.length; i += TOTALES_POR_LLAMADA) chunks.push(ids.slice(i, i + TOTALES_POR_LLAMADA));
      const answers = await Promise.all(
        chunks.map((chunk) =>
          call<GetTotalesDeProductosResponse>(caller, (md, o, cb) =>
            client.getTotalesDeProductos({ productoIds: chunk }, md, o, cb),
          ),
        ),
      );
      for (const res of answers)
        for (const t of res.totales) out.set(t.productoId, { total: Number(t.total), sinUbicar: Number(t.sinUbicar) });
      return out;
    },

    async deProducto(caller, productoId) {
      const res = await call<GetExistenciasDeProductoResponse>(caller, (md, o, cb) =>
        client.getExistenciasDeProducto({ productoId }, md, o, cb),
      );
      return {
        porBodega: res.porBodega.map(existenciaFromProto),
        total: Number(res.total),
        sinUbicar: Number(res.sinUbicar),
      };
    },

    async porLote(caller, { parents, perParent, afterId, pageSize, pageToken = '' }) {
      const message = {
        bodegaIds: 'bodegaIds' in parents ? [...parents.bodegaIds] : [],
        productoIds: 'productoIds' in parents ? [...parents.productoIds] : [],
        perParent,
        afterId,
        pageSize,
        pageToken,
      };
      const res = await call<ListExistenciasPorLoteResponse>(caller, (md, o, cb) =>
        client.listExistenciasPorLote(message, md, o, cb),
      );
      return { existencias: res.existencias.map(existenciaFromProto), nextPageToken: res.nextPageToken };
    },

    async productosDeBodega(caller, bodegaId, { pageSize, pageToken = '' }) {
      const res = await call<ListProductosDeBodegaResponse>(caller, (md, o, cb) =>
        client.listProductosDeBodega({ bodegaId, pageSize, pageToken }, md, o, cb),
      );
      return {
        productos: res.productos.map(({ id, nombre, precio, cantidad }) => ({ id, nombre, precio, cantidad })),
        nextPageToken: res.nextPageToken,
      };
    },
  };
}
