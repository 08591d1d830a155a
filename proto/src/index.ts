// Hand-written entry point of the generated contracts (gen/ is produced by
// `buf generate` and never edited). Services import from here only.
import * as path from 'node:path';
import {
  AlertaSobre as AlertaSobreEnum,
  MotivoMovimiento as MotivoMovimientoEnum,
  TipoMovimiento as TipoMovimientoEnum,
  TipoOperacion as TipoOperacionEnum,
} from '../gen/inventario/v1/existencia.js';
import { EstadoReserva as EstadoReservaEnum } from '../gen/inventario/v1/reserva.js';

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
  GetBodegaEliminadaRequest,
  GetBodegaEliminadaResponse,
  GetBodegaRequest,
  GetBodegaResponse,
  ListBodegasRequest,
  ListBodegasResponse,
  MarkBodegaDeletingRequest,
  MarkBodegaDeletingResponse,
  UpdateBodegaRequest,
  UpdateBodegaResponse,
} from '../gen/inventario/v1/bodega.js';
export {
  AlertaSobre,
  AsignarExistenciaRequest,
  AsignarExistenciaResponse,
  CambiarUmbralMinimoRequest,
  CambiarUmbralMinimoResponse,
  ContarProductoRequest,
  ContarProductoResponse,
  DiferenciaExistencia,
  Existencia,
  ExistenciaServiceClient,
  ExistenciaServiceService,
  GetExistenciaRequest,
  GetExistenciaResponse,
  GetExistenciasDeProductoRequest,
  GetExistenciasDeProductoResponse,
  GetOperacionRequest,
  GetOperacionResponse,
  GetTotalesDeProductosRequest,
  GetTotalesDeProductosResponse,
  ListExistenciasRequest,
  ListExistenciasResponse,
  ListExistenciasPorLoteRequest,
  ListExistenciasPorLoteResponse,
  ListMovimientosRequest,
  ListMovimientosResponse,
  ListProductosDeBodegaRequest,
  ListProductosDeBodegaResponse,
  MotivoMovimiento,
  Movimiento,
  Operacion,
  RegistrarMovimientoRequest,
  RegistrarMovimientoResponse,
  RegistrarStockInicialRequest,
  RegistrarStockInicialResponse,
  RetirarExistenciaRequest,
  RetirarExistenciaResponse,
  RevertirOperacionRequest,
  RevertirOperacionResponse,
  TipoMovimiento,
  TipoOperacion,
  TotalDeProducto,
  TransferirRequest,
  TransferirResponse,
  VerificarExistenciasRequest,
  VerificarExistenciasResponse,
  type ExistenciaServiceServer,
} from '../gen/inventario/v1/existencia.js';
// Reservations (docs/contract.md §13), in bodega-svc beside the levels they hold.
export {
  ConsumirReservaRequest,
  ConsumirReservaResponse,
  CrearReservaRequest,
  CrearReservaResponse,
  EstadoReserva,
  ExtenderReservaRequest,
  ExtenderReservaResponse,
  GetReservaRequest,
  GetReservaResponse,
  LiberarReservaRequest,
  LiberarReservaResponse,
  LineaConsumo,
  LineaReserva,
  LineaSolicitada,
  ListReservasRequest,
  ListReservasResponse,
  Reserva,
  ReservaServiceClient,
  ReservaServiceService,
  type ReservaServiceServer,
} from '../gen/inventario/v1/reserva.js';
// identidad-svc (docs/contract.md §12): its own names (Usuario, Token, Principal, …) collide with no other file's.
export {
  Asignacion,
  AutenticarRequest,
  AutenticarResponse,
  CambiarPasswordRequest,
  CambiarPasswordResponse,
  ClavePublica,
  CreateTokenRequest,
  CreateTokenResponse,
  CreateUsuarioRequest,
  CreateUsuarioResponse,
  CredencialBasica,
  DeleteUsuarioRequest,
  DeleteUsuarioResponse,
  EstadoUsuario,
  GetClavesPublicasRequest,
  GetClavesPublicasResponse,
  GetUsuarioRequest,
  GetUsuarioResponse,
  IdentidadServiceClient,
  type IdentidadServiceServer,
  IdentidadServiceService,
  ListAuditoriaRequest,
  ListAuditoriaResponse,
  ListTokensRequest,
  ListTokensResponse,
  ListUsuariosRequest,
  ListUsuariosResponse,
  MetodoAuth,
  PermisoEfectivo,
  Principal,
  RegistroAuditoria,
  RevokeTokenRequest,
  RevokeTokenResponse,
  SetAsignacionesRequest,
  SetAsignacionesResponse,
  SuspenderUsuarioRequest,
  SuspenderUsuarioResponse,
  TipoUsuario,
  Token,
  UpdateUsuarioRequest,
  UpdateUsuarioResponse,
  Usuario,
  VerificarAuditoriaRequest,
  VerificarAuditoriaResponse,
  YoRequest,
  YoResponse,
  estadoUsuarioFromJSON,
  estadoUsuarioToJSON,
  metodoAuthFromJSON,
  metodoAuthToJSON,
  tipoUsuarioFromJSON,
  tipoUsuarioToJSON,
} from '../gen/inventario/v1/identidad.js';

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

export const TIPO_MOVIMIENTO_NAMES = enumNames<'ENTRADA' | 'SALIDA' | 'TRANSFERENCIA' | 'AJUSTE'>(
  TipoMovimientoEnum,
  'TIPO_MOVIMIENTO_',
);
export const MOTIVO_MOVIMIENTO_NAMES = enumNames<
  | 'ASIGNACION'
  | 'RECEPCION'
  | 'VENTA'
  | 'CONTEO'
  | 'RETIRO'
  | 'TRANSFERENCIA'
  | 'REVERSO'
  | 'PRODUCTO_ELIMINADO'
  | 'BODEGA_ELIMINADA'
  | 'DEVOLUCION'
  | 'MERMA'
  | 'STOCK_INICIAL'
  | 'MIGRACION'
>(MotivoMovimientoEnum, 'MOTIVO_MOVIMIENTO_');
export const TIPO_OPERACION_NAMES = enumNames<
  | 'ASIGNACION'
  | 'RETIRO'
  | 'ENTRADA'
  | 'SALIDA'
  | 'AJUSTE'
  | 'TRANSFERENCIA'
  | 'REVERSO'
  | 'PRODUCTO_ELIMINADO'
  | 'BODEGA_ELIMINADA'
>(TipoOperacionEnum, 'TIPO_OPERACION_');
/** What a level's threshold watches (issue 24, docs/contract.md §13.9). */
export const ALERTA_SOBRE_NAMES = enumNames<'CANTIDAD' | 'DISPONIBLE'>(AlertaSobreEnum, 'ALERTA_SOBRE_');
export const ESTADO_RESERVA_NAMES = enumNames<'ACTIVA' | 'CONSUMIDA' | 'LIBERADA' | 'EXPIRADA' | 'DESCUBIERTA'>(
  EstadoReservaEnum,
  'ESTADO_RESERVA_',
);
