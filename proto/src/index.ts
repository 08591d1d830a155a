// Hand-written entry point of the generated contracts (gen/ is produced by
// `buf generate` and never edited). Services import from here only.
import * as path from 'node:path';
import {
  MotivoMovimiento as MotivoMovimientoEnum,
  TipoMovimiento as TipoMovimientoEnum,
  TipoOperacion as TipoOperacionEnum,
} from '../gen/inventario/v1/existencia.js';

export * from '../gen/inventario/v1/producto.js';
export {
  Bodega,
  BodegaServiceClient,
  BodegaServiceService,
  type BodegaServiceServer,
  CreateBodegaRequest,
  CreateBodegaResponse,
  DeleteBodegaRequest,
  DeleteBodegaResponse,
  GetBodegaRequest,
  GetBodegaResponse,
  ListBodegasRequest,
  ListBodegasResponse,
  UpdateBodegaRequest,
  UpdateBodegaResponse,
} from '../gen/inventario/v1/bodega.js';
export {
  AsignarExistenciaRequest,
  AsignarExistenciaResponse,
  DiferenciaExistencia,
  Existencia,
  ExistenciaServiceClient,
  ExistenciaServiceService,
  GetExistenciaRequest,
  GetExistenciaResponse,
  GetOperacionRequest,
  GetOperacionResponse,
  ListExistenciasRequest,
  ListExistenciasResponse,
  ListMovimientosRequest,
  ListMovimientosResponse,
  MotivoMovimiento,
  Movimiento,
  Operacion,
  RegistrarMovimientoRequest,
  RegistrarMovimientoResponse,
  RetirarExistenciaRequest,
  RetirarExistenciaResponse,
  RevertirOperacionRequest,
  RevertirOperacionResponse,
  TipoMovimiento,
  TipoOperacion,
  TransferirRequest,
  TransferirResponse,
  VerificarExistenciasRequest,
  VerificarExistenciasResponse,
  type ExistenciaServiceServer,
} from '../gen/inventario/v1/existencia.js';

/** Binary FileDescriptorSet of every inventario.v1 file, for server reflection. */
export const descriptorSetPath = path.join(__dirname, '..', '..', 'gen', 'descriptor-set.binpb');

/**
 * The contract's names of a proto enum's values (docs/contract.md §10):
 * the value name without its buf-mandated prefix (TIPO_MOVIMIENTO_ENTRADA
 * is "ENTRADA"). UNSPECIFIED and unknown values have no name.
 */
export interface EnumNames<N extends string> {
  name(value: number): N | undefined;
  value(name: N): number;
}

function enumNames<N extends string>(values: Record<string, string | number>, prefix: string): EnumNames<N> {
  return {
    name(value) {
      const full = values[value];
      if (typeof full !== 'string' || !full.startsWith(prefix) || full.endsWith('_UNSPECIFIED')) return undefined;
      return full.slice(prefix.length) as N;
    },
    value(name) {
      const value = values[prefix + name];
      if (typeof value !== 'number') throw new Error(`no ${prefix}${name} value`);
      return value;
    },
  };
}

export const TIPO_MOVIMIENTO_NAMES = enumNames<'ENTRADA' | 'SALIDA' | 'TRANSFERENCIA' | 'AJUSTE'>(TipoMovimientoEnum, 'TIPO_MOVIMIENTO_');
export const MOTIVO_MOVIMIENTO_NAMES = enumNames<
  'ASIGNACION' | 'RECEPCION' | 'VENTA' | 'CONTEO' | 'RETIRO' | 'TRANSFERENCIA' | 'REVERSO' | 'PRODUCTO_ELIMINADO' | 'BODEGA_ELIMINADA' | 'DEVOLUCION' | 'MERMA'
>(MotivoMovimientoEnum, 'MOTIVO_MOVIMIENTO_');
export const TIPO_OPERACION_NAMES = enumNames<
  'ASIGNACION' | 'RETIRO' | 'ENTRADA' | 'SALIDA' | 'AJUSTE' | 'TRANSFERENCIA' | 'REVERSO' | 'PRODUCTO_ELIMINADO' | 'BODEGA_ELIMINADA'
>(TipoOperacionEnum, 'TIPO_OPERACION_');
