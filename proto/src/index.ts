// Hand-written entry point of the generated contracts (gen/ is produced by
// `buf generate` and never edited). Services import from here only.
import * as path from 'node:path';

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
