/**
 * bodega-svc's ExistenciaService as promises, and the metadata the BFF sends
 * for a user: what the bodega-svc tests and the fault suite's concurrent
 * clients call the stock with.
 */
import { Metadata, type handleUnaryCall } from '@grpc/grpc-js';
import { USUARIO_METADATA_KEY } from '@inventario/platform';
import type { ExistenciaServiceServer } from '@inventario/proto';

/** A unary call as a promise; rejects with the ServiceError. */
export type Rpc<Req, Res> = (req: Req, metadata?: Metadata) => Promise<Res>;

/** The methods of ExistenciaService (the stock), each as a promise. */
type StockMethod =
  | 'asignarExistencia'
  | 'retirarExistencia'
  | 'registrarMovimiento'
  | 'transferir'
  | 'revertirOperacion'
  | 'getExistencia'
  | 'listExistencias'
  | 'listExistenciasPorLote'
  | 'getOperacion'
  | 'listMovimientos'
  | 'verificarExistencias'
  | 'cambiarUmbralMinimo'
  | 'getTotalesDeProductos'
  | 'registrarStockInicial'
  | 'contarProducto';
type RpcOf<H> = H extends handleUnaryCall<infer Req, infer Res> ? Rpc<Req, Res> : never;
export type StockRpc = { [K in StockMethod]: RpcOf<ExistenciaServiceServer[K]> };

/** Metadata as the BFF sends it for a Basic-auth user. */
export function asUser(usuario: string, traceparent?: string): Metadata {
  const md = new Metadata();
  md.set(USUARIO_METADATA_KEY, usuario);
  if (traceparent) md.set('traceparent', traceparent);
  return md;
}
