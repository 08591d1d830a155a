import {
  decodeNivelPageToken,
  encodeNivelPageToken,
  FailedPreconditionError,
  idempotentBy,
  InvalidArgumentError,
  itemSizeBound,
  listPageOf,
  MAX_INT32,
  pageSizeOf,
  requirePositiveId,
  requirePositiveIds,
  unary,
  validateFields,
  type CallContext,
  type Logger,
} from '@inventario/platform';
import {
  ALERTA_SOBRE_NAMES,
  AlertaSobre as AlertaSobreProto,
  AsignarExistenciaRequest,
  CambiarUmbralMinimoRequest,
  ContarProductoRequest,
  RegistrarStockInicialRequest,
  MOTIVO_MOVIMIENTO_NAMES,
  MotivoMovimiento,
  TipoMovimiento,
  RegistrarMovimientoRequest,
  RetirarExistenciaRequest,
  RevertirOperacionRequest,
  TIPO_MOVIMIENTO_NAMES,
  TIPO_OPERACION_NAMES,
  TransferirRequest,
  type Existencia as ExistenciaProto,
  type ListExistenciasRequest,
  type ListExistenciasResponse,
  type ExistenciaServiceServer,
  type Movimiento as MovimientoProto,
  type Operacion as OperacionProto,
} from '@inventario/proto';
import {
  validateAsignacion,
  validateMovimiento,
  validateNivel,
  validateReverso,
  validateTransferencia,
  validateUmbral,
  type Existencia,
  type Movimiento,
  type Operacion,
} from '../domain/existencia';
import type { RetiroDeProducto } from '../retiro-de-producto';
import { bodegasDeLista, exigirEn, filtroDeBodegas, verEn, verOperacion } from './alcance';
import type { CommandOptions, ExistenciaStore } from '../store/existencia-store';
import type { Verificaciones } from '../verificaciones';

export interface ExistenciaHandlersDeps {
  store: ExistenciaStore;
  logger: Logger;
  /** The verifications run off the request path (verificaciones.ts). */
  verificaciones: Verificaciones;
  /** A product taken out of a warehouse altogether (RetirarExistencia with `desasignar`, retiro-de-producto.ts). */
  retirarProducto: (
    bodegaId: number,
    productoId: number,
    caller: CallContext,
    opts: CommandOptions,
  ) => Promise<RetiroDeProducto>;
  /** A warehouse's products, assigned or stocked (productos-de-bodega.ts). */
  productosDeBodega: Pick<ExistenciaServiceServer, 'listProductosDeBodega'>;
  /** A product's levels and unlocated units (existencias-de-producto.ts). */
  existenciasDeProducto: Pick<ExistenciaServiceServer, 'getExistenciasDeProducto'>;
}

/**
 * How long a VerificarExistencias call waits for a verification begun after it, well inside the
 * BFF's 5 s deadline; past it the call answers the last completed one.
 */
export const VERIFICACION_ESPERA_MS = 2000;

export function existenciaToProto(e: Existencia): ExistenciaProto {
  return {
    bodegaId: e.bodegaId,
    productoId: e.productoId,
    cantidad: e.cantidad,
    umbralMinimo: e.umbralMinimo ?? undefined,
    version: e.version,
    fechaCreacion: e.fechaCreacion,
    fechaActualizacion: e.fechaActualizacion,
    reservada: e.reservada ?? 0,
    disponible: e.cantidad - (e.reservada ?? 0),
    alertaSobre: ALERTA_SOBRE_NAMES.value(e.alertaSobre ?? 'CANTIDAD'),
  };
}

function movimientoToProto(m: Movimiento): MovimientoProto {
  return {
    id: m.id,
    operacionId: m.operacionId,
    bodegaId: m.bodegaId,
    productoId: m.productoId,
    tipo: TIPO_MOVIMIENTO_NAMES.value(m.tipo),
    motivo: MOTIVO_MOVIMIENTO_NAMES.value(m.motivo),
    cantidad: m.cantidad,
    cantidadAnterior: m.cantidadAnterior,
    cantidadPosterior: m.cantidadPosterior,
    version: m.version,
    usuario: m.usuario,
    comentario: m.comentario ?? undefined,
    fecha: m.fecha,
  };
}

function operacionToProto(o: Operacion): OperacionProto {
  return {
    id: o.id,
    tipo: TIPO_OPERACION_NAMES.value(o.tipo),
    usuario: o.usuario,
    comentario: o.comentario ?? undefined,
    fecha: o.fecha,
    revierteA: o.revierteA ?? undefined,
    revertidaPor: o.revertidaPor ?? undefined,
    movimientos: o.movimientos.map(movimientoToProto),
  };
}

/** Operation and line ids are 64-bit: only those JavaScript holds exactly. */
function requireOperacionId(value: number, campo: string): number {
  if (!Number.isSafeInteger(value) || value <= 0)
    throw InvalidArgumentError.field(campo, 'debe ser un entero positivo');
  return value;
}

function encodeLineaToken(id: number): string {
  return Buffer.from(String(id), 'utf8').toString('base64url');
}

function decodeLineaToken(token: string): number | null {
  if (token === '') return null;
  const text = Buffer.from(token, 'base64url').toString('utf8');
  const id = /^[1-9]\d{0,15}$/.test(text) ? Number(text) : 0;
  if (!Number.isSafeInteger(id) || id === 0 || encodeLineaToken(id) !== token)
    throw InvalidArgumentError.field('pageToken', 'no es un token de esta lista');
  return id;
}

const lineaSize = (m: Movimiento) => itemSizeBound(m.usuario, m.comentario);

/**
 * The fields ListExistencias and ListExistenciasPorLote share, checked alike (docs/contract.md: the
 * per-lote list pages "as ListExistencias"): every violation named at once, by its field.
 */
function validateNivelList(request: ListExistenciasRequest) {
  return validateFields({
    pageSize: () => pageSizeOf(request.pageSize),
    after: () => decodeNivelPageToken(request.pageToken),
    bodegaIds: () => requirePositiveIds(request.bodegaIds, 'bodegaIds'),
    productoIds: () => requirePositiveIds(request.productoIds, 'productoIds'),
  });
}

/** A keyset page of levels: the token is the last level's, and only when more follow. */
function nivelPageToProto(page: { existencias: Existencia[]; hasMore: boolean }): ListExistenciasResponse {
  const last = page.existencias.at(-1);
  return {
    existencias: page.existencias.map(existenciaToProto),
    nextPageToken: page.hasMore && last ? encodeNivelPageToken(last.bodegaId, last.productoId) : '',
  };
}

/**
 * docs/contract.md §10. Writes take `request_id`; those on one level also `expected_version`.
 * One handler per RPC of the generated server interface: its length is the service's list of calls.
 */
export function createExistenciaHandlers({
  store,
  logger,
  verificaciones,
  retirarProducto,
  productosDeBodega,
  existenciasDeProducto,
}: ExistenciaHandlersDeps): ExistenciaServiceServer {
  return {
    ...productosDeBodega,
    ...existenciasDeProducto,
    asignarExistencia: unary(
      logger,
      'AsignarExistencia',
      async (request, caller) => {
        const asignacion = validateAsignacion(request);
        // Every stock command is judged again here, on the caller's principal (alcance.ts).
        exigirEn(caller, 'existencias:ajustar', [asignacion.bodegaId]);
        const { existencia, operacion } = await store.asignar(asignacion, caller, {
          expectedVersion: request.expectedVersion,
          requiereNivel: request.requiereNivel,
          versionRequerida: request.versionRequerida,
          claveIdempotencia: request.requestId,
        });
        return { existencia: existenciaToProto(existencia), operacion: operacionToProto(operacion) };
      },
      idempotentBy(AsignarExistenciaRequest),
    ),

    cambiarUmbralMinimo: unary(
      logger,
      'CambiarUmbralMinimo',
      async (request, caller) => {
        const { alertaSobre, ...cambio } = request;
        const umbral = validateUmbral({
          ...cambio,
          // Absent or UNSPECIFIED: what it watched; an unknown value is named, so it is refused.
          alertaSobre:
            alertaSobre === undefined || alertaSobre === AlertaSobreProto.ALERTA_SOBRE_UNSPECIFIED
              ? undefined
              : (ALERTA_SOBRE_NAMES.name(alertaSobre) ?? String(alertaSobre)),
        });
        exigirEn(caller, 'umbrales:configurar', [umbral.bodegaId]);
        const existencia = await store.cambiarUmbral(umbral, caller, {
          expectedVersion: request.expectedVersion,
          requiereNivel: request.requiereNivel,
          claveIdempotencia: request.requestId,
        });
        return { existencia: existenciaToProto(existencia) };
      },
      idempotentBy(CambiarUmbralMinimoRequest),
    ),

    retirarExistencia: unary(
      logger,
      'RetirarExistencia',
      async (request, caller) => {
        const { bodegaId, productoId } = validateNivel(request);
        exigirEn(caller, 'existencias:ajustar', [bodegaId]);
        const opts = {
          expectedVersion: request.expectedVersion,
          requiereNivel: request.requiereNivel,
          claveIdempotencia: request.requestId,
        };
        if (request.desasignar) {
          const retiro = await retirarProducto(bodegaId, productoId, caller, opts);
          return { ...retiro, operacion: retiro.operacion ? operacionToProto(retiro.operacion) : undefined };
        }
        const { cantidadRetirada, operacion } = await store.retirar(bodegaId, productoId, caller, opts);
        return { existia: true, cantidadRetirada, operacion: operacionToProto(operacion), desasignado: false };
      },
      idempotentBy(RetirarExistenciaRequest),
    ),

    registrarMovimiento: unary(
      logger,
      'RegistrarMovimiento',
      async (request, caller) => {
        const movimiento = validateMovimiento({
          ...request,
          tipo: TIPO_MOVIMIENTO_NAMES.name(request.tipo),
          motivo:
            request.motivo === MotivoMovimiento.MOTIVO_MOVIMIENTO_UNSPECIFIED
              ? undefined
              : (MOTIVO_MOVIMIENTO_NAMES.name(request.motivo) ?? 'desconocido'),
        });
        exigirEn(
          caller,
          movimiento.tipo === 'ENTRADA' || movimiento.tipo === 'SALIDA' ? 'existencias:mover' : 'existencias:ajustar',
          [movimiento.bodegaId],
        );
        const operacion = await store.registrarMovimiento(movimiento, caller, {
          expectedVersion: request.expectedVersion,
          requiereNivel: request.requiereNivel,
          claveIdempotencia: request.requestId,
        });
        return { operacion: operacionToProto(operacion) };
      },
      idempotentBy(RegistrarMovimientoRequest),
    ),

    transferir: unary(
      logger,
      'Transferir',
      async (request, caller) => {
        const transferencia = validateTransferencia(request);
        // Both ends.
        exigirEn(caller, 'existencias:transferir', [transferencia.origenId, transferencia.destinoId]);
        const operacion = await store.transferir(transferencia, caller, {
          claveIdempotencia: request.requestId,
        });
        return { operacion: operacionToProto(operacion) };
      },
      idempotentBy(TransferirRequest),
    ),

    revertirOperacion: unary(
      logger,
      'RevertirOperacion',
      async (request, caller) => {
        const { operacionId, comentario } = validateReverso(request);
        // Every warehouse of its lines (a transfer's two ends); the lines never change, so reading them first is safe.
        if (bodegasDeLista(caller, 'operaciones:revertir') !== undefined) {
          const original = await store.getOperacion(operacionId);
          exigirEn(caller, 'operaciones:revertir', [...new Set(original.movimientos.map((m) => m.bodegaId))]);
        }
        const operacion = await store.revertir(operacionId, comentario, caller, {
          claveIdempotencia: request.requestId,
        });
        return { operacion: operacionToProto(operacion) };
      },
      idempotentBy(RevertirOperacionRequest),
    ),

    getExistencia: unary(logger, 'GetExistencia', async (request, caller) => {
      const { bodegaId, productoId } = validateNivel(request);
      verEn(caller, bodegaId);
      return { existencia: existenciaToProto(await store.get(bodegaId, productoId)) };
    }),

    listExistencias: unary(logger, 'ListExistencias', async (request, caller) => {
      const query = validateNivelList(request);
      // A scoped principal sees only its warehouses' levels, filtered in SQL (an empty filter: an empty page).
      const visibles = filtroDeBodegas(caller, 'existencias:leer', query.bodegaIds);
      if (visibles?.length === 0) return { existencias: [], nextPageToken: '' };
      return nivelPageToProto(await store.list(visibles ? { ...query, bodegaIds: visibles } : query));
    }),

    listExistenciasPorLote: unary(logger, 'ListExistenciasPorLote', async (request, caller) => {
      const query = validateNivelList(request);
      const { bodegaIds, productoIds } = query;
      const porBodega = bodegaIds.length > 0;
      if (porBodega === productoIds.length > 0) {
        throw InvalidArgumentError.field('bodegaIds', 'indique bodegaIds o productoIds: uno de los dos, no ambos');
      }
      // As ListExistencias: a scoped principal sees only its warehouses' levels (none: an empty page).
      const visibles = bodegasDeLista(caller, 'existencias:leer');
      if (visibles?.length === 0) return { existencias: [], nextPageToken: '' };
      const page = await store.listPorLote({
        pageSize: query.pageSize,
        after: query.after,
        parents: porBodega ? { bodegaIds } : { productoIds },
        perParent: request.perParent,
        afterId: request.afterId ?? null,
        visibles,
      });
      return nivelPageToProto(page);
    }),

    getOperacion: unary(logger, 'GetOperacion', async (request, caller) => {
      const id = requireOperacionId(request.id, 'id');
      const operacion = await store.getOperacion(id);
      verOperacion(caller, id, [...new Set(operacion.movimientos.map((m) => m.bodegaId))]);
      return { operacion: operacionToProto(operacion) };
    }),

    listMovimientos: unary(logger, 'ListMovimientos', async (request, caller) => {
      const query = validateFields({
        pageSize: () => pageSizeOf(request.pageSize),
        beforeId: () => decodeLineaToken(request.pageToken),
        bodegaId: () => (request.bodegaId === undefined ? undefined : requirePositiveId(request.bodegaId, 'bodegaId')),
        productoId: () =>
          request.productoId === undefined ? undefined : requirePositiveId(request.productoId, 'productoId'),
        operacionId: () =>
          request.operacionId === undefined ? undefined : requireOperacionId(request.operacionId, 'operacionId'),
        tipo: () => {
          if (request.tipo === TipoMovimiento.TIPO_MOVIMIENTO_UNSPECIFIED) return undefined;
          const tipo = TIPO_MOVIMIENTO_NAMES.name(request.tipo);
          if (!tipo) throw InvalidArgumentError.field('tipo', 'no es un tipo de movimiento');
          return tipo;
        },
      });
      const visibles = filtroDeBodegas(
        caller,
        'existencias:leer',
        query.bodegaId === undefined ? [] : [query.bodegaId],
      );
      if (visibles?.length === 0) return { movimientos: [], nextPageToken: '' };
      const page = await store.listMovimientos({
        ...query,
        ...(visibles ? { bodegaIds: visibles } : {}),
        desde: request.desde,
        hasta: request.hasta,
      });
      // Keyset on the line id, newest first: a page also ends at the byte budget.
      const { items } = listPageOf(page.movimientos, page.hasMore, (m) => m.id, lineaSize);
      const more = page.hasMore || items.length < page.movimientos.length;
      const last = items.at(-1);
      return {
        movimientos: items.map(movimientoToProto),
        nextPageToken: more && last ? encodeLineaToken(last.id) : '',
      };
    }),

    verificarExistencias: unary(logger, 'VerificarExistencias', async () => {
      const v = await verificaciones.ultima(VERIFICACION_ESPERA_MS);
      if (!v) {
        throw new FailedPreconditionError(
          'la primera verificación de existencias aún no ha terminado; reintente en unos segundos',
          {
            reason: 'VERIFICACION_EN_CURSO',
          },
        );
      }
      return {
        consistente: v.consistente,
        diferencias: v.diferencias,
        nivelesVerificados: v.nivelesVerificados,
        bodegasVerificadas: v.bodegasVerificadas,
        verificadoEn: v.verificadoEn,
        diferenciasReservas: (v.diferenciasReservas ?? []).map((d) => ({ ...d, reservaId: d.reservaId ?? 0 })),
      };
    }),

    ...unaRespuestaHandlers(store, logger),
  };
}

/** What a count or an initial recording may hold: an INT column and an int32 on the wire. */
function cantidadDe(value: number): number {
  if (!Number.isSafeInteger(value) || value < 0 || value > MAX_INT32)
    throw InvalidArgumentError.field('cantidad', 'debe ser un entero mayor o igual que 0');
  return value;
}

const bodegaOpcional = (value: number | undefined): number | null =>
  value === undefined || value === 0 ? null : requirePositiveId(value, 'bodegaId');

/**
 * One answer (docs/contract.md §10.6): a product's figure is its ledger total; producto-svc records its writes of it
 * here.
 */
function unaRespuestaHandlers(
  store: ExistenciaStore,
  logger: Logger,
): Pick<ExistenciaServiceServer, 'getTotalesDeProductos' | 'registrarStockInicial' | 'contarProducto'> {
  return {
    getTotalesDeProductos: unary(logger, 'GetTotalesDeProductos', async (request) => {
      const ids = requirePositiveIds(request.productoIds, 'productoIds');
      return { totales: await store.totalesDeProductos(ids) };
    }),

    registrarStockInicial: unary(
      logger,
      'RegistrarStockInicial',
      async (request, caller) => {
        const inicial = validateFields({
          productoId: () => requirePositiveId(request.productoId, 'productoId'),
          bodegaId: () => bodegaOpcional(request.bodegaId),
          cantidad: () => cantidadDe(request.cantidad),
          origen: () => {
            const motivo = MOTIVO_MOVIMIENTO_NAMES.name(request.motivo);
            if (motivo !== 'STOCK_INICIAL' && motivo !== 'MIGRACION')
              throw InvalidArgumentError.field('motivo', 'debe ser STOCK_INICIAL o MIGRACION');
            return motivo;
          },
        });
        // Recorded for a product write (producto-svc forwards its caller): the product permission, as at the gateway.
        exigirEn(caller, 'productos:escribir');
        const registrado = await store.registrarStockInicial(inicial, caller, { claveIdempotencia: request.requestId });
        return { operacion: registrado ? operacionToProto(registrado.operacion) : undefined, total: registrado?.total };
      },
      idempotentBy(RegistrarStockInicialRequest),
    ),

    contarProducto: unary(
      logger,
      'ContarProducto',
      async (request, caller) => {
        const conteo = validateFields({
          productoId: () => requirePositiveId(request.productoId, 'productoId'),
          bodegaId: () => bodegaOpcional(request.bodegaId),
          cantidad: () => cantidadDe(request.cantidad),
        });
        exigirEn(caller, 'productos:escribir');
        const { operacion, total } = await store.contarProducto(conteo, caller, {
          claveIdempotencia: request.requestId,
        });
        return { operacion: operacion ? operacionToProto(operacion) : undefined, total };
      },
      idempotentBy(ContarProductoRequest),
    ),
  };
}
