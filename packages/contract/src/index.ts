// The public API of @inventario/contract: rules every surface and service applies alike, free of I/O.
// packages/contract/README.md describes them; docs/contract.md §12 is the contract they implement.

// Permission catalogue and built-in roles.
export {
  alcanceDe,
  CATALOGO,
  esPermiso,
  esRol,
  NOMBRES_ROL,
  PERMISOS,
  ROLES,
  type Alcance,
  type Asignacion,
  type Permiso,
  type Rol,
} from './permisos';

// The authorization decision and its set algebra.
export {
  aLista,
  bodegasVisibles,
  contenidoEn,
  cubre,
  decidir,
  deLista,
  esAdminGlobal,
  interseccion,
  permisosDe,
  puedeConceder,
  type Decision,
  type Donde,
  type PermisoEfectivo,
  type Permisos,
} from './decidir';

// The principal and its signed form.
export {
  clavePublicaDeJwk,
  crearFirmante,
  crearVerificador,
  jwkPublica,
  kidDe,
  PRINCIPAL_METADATA_KEY,
  PrincipalInvalidoError,
  type Firmante,
  type MetodoAuth,
  type Principal,
  type TipoUsuario,
  type Verificador,
} from './principal';

// The stock ledger's vocabulary and the stock rules that need no stored state, each with its one wording.
export {
  cantidadMinima,
  exigeVersion,
  mismaBodega,
  motivoAdmitido,
  MOTIVOS_DE_CLIENTE,
  MOTIVOS_MOVIMIENTO,
  MOTIVOS_POR_TIPO,
  STOCK_MENSAJES,
  TIPOS_MOVIMIENTO,
  TIPOS_MOVIMIENTO_REGISTRABLES,
  TIPOS_OPERACION,
  type MotivoMovimiento,
  type TipoMovimiento,
  type TipoMovimientoRegistrable,
  type TipoOperacion,
} from './existencias';

// A reservation's states and shape.
export { ESTADOS_RESERVA, type EstadoReserva, type LineaReserva, type ReservaDe } from './reservas';

// The records' REST form and the stock reads' pages and reports (pure shapes).
export {
  ALERTAS_SOBRE,
  type AlertaSobre,
  type AsignacionInput,
  type Bodega,
  type BodegaDeleteResult,
  type BodegaInput,
  type BodegaPatch,
  type CursorPage,
  type DiferenciaExistencia,
  type DiferenciaReserva,
  type Existencia,
  type ExistenciaDe,
  type ExistenciaFilter,
  type ExistenciasDeProducto,
  type MovimientoFilter,
  type MovimientoInput,
  type PaginaConCursor,
  type Producto,
  type ProductoDe,
  type ProductoDeBodega,
  type ProductoInput,
  type ProductoPatch,
  type TransferenciaInput,
  type UmbralCambio,
  type VerificacionExistencias,
} from './registros';
