import {
  buildEnvelope,
  EVENT_SOURCE,
  eventAudit,
  formatLocalUtc,
  type BodegaEventData,
  type DeletedEventData,
  type EventData,
  type EventEnvelope,
  type EventType,
  type MovimientoRegistradoData,
  type Operacion,
  type ProductoEventData,
  type ReservaDescubiertaData,
  type StockUmbralData,
} from '@inventario/platform';

/**
 * Events shaped exactly as the services publish them, for the template
 * preview and tests. Stock samples tell one story: operation 9 moves 6 units
 * of product 12 from warehouse 3 (10 -> 4: StockBajo) to 4; operation 10 refills 3.
 */

export interface SampleOptions {
  namespace?: string;
  at?: Date;
  /** E.g. a hostile one, to check escaping. */
  nombre?: string;
  /** For StockBajo / StockRepuesto, the level's product; for ReservaDescubierta, the reservation. */
  id?: number;
  usuario?: string;
}

const DEFAULT_AT = new Date('2026-11-22T14:03:07Z');

type RecordEventType = Exclude<
  EventType,
  'MovimientoRegistrado' | 'StockBajo' | 'StockRepuesto' | 'ReservaDescubierta'
>;

const OPERACION: Record<RecordEventType, Operacion> = {
  ProductoCreado: 'CREATE',
  ProductoActualizado: 'UPDATE',
  ProductoEliminado: 'DELETE',
  BodegaCreada: 'CREATE',
  BodegaActualizada: 'UPDATE',
  BodegaEliminada: 'DELETE',
};

/** The envelope `subject` and `data` of a product or warehouse event. */
function recordEvent(type: RecordEventType, options: SampleOptions, at: Date): { subject: string; data: EventData } {
  const audit = eventAudit(OPERACION[type], options.usuario ?? 'ana', at);
  const producto = type.startsWith('Producto');
  const id = options.id ?? (producto ? 12 : 3);
  const nombre = options.nombre ?? (producto ? 'Tornillo M6 inoxidable' : 'Bodega Central');
  let data: ProductoEventData | BodegaEventData | DeletedEventData;
  const version = audit.operacion === 'CREATE' ? 1 : 2;
  if (audit.operacion === 'DELETE') {
    data = { id, nombre, ...audit, version };
  } else if (producto) {
    const stock = audit.operacion === 'CREATE' ? 500 : 480;
    data = {
      productoId: id,
      nombre,
      descripcion: 'Caja de 100 unidades',
      precio: 1234.5,
      cantidadEnStock: stock,
      cantidad: stock,
      bodegaId: 3,
      ...audit,
      version,
    };
    if (audit.operacion === 'UPDATE') data.camposModificados = ['cantidadEnStock'];
  } else {
    data = {
      bodegaId: id,
      nombre,
      ubicacion: 'Calle de Alcalá 45, Madrid',
      capacidad: audit.operacion === 'CREATE' ? 1000 : 1200,
      ...audit,
      version,
    };
    if (audit.operacion === 'UPDATE') data.camposModificados = ['capacidad'];
  }
  return { subject: producto ? `/productos/${id}` : `/bodegas/${id}`, data };
}

/** MovimientoRegistrado of the transfer: both lines under one operation. */
function movimientoEvent(options: SampleOptions, at: Date): { subject: string; data: MovimientoRegistradoData } {
  const operacionId = options.id ?? 9;
  const usuario = options.usuario ?? 'ana';
  const fecha = formatLocalUtc(at);
  const line = {
    operacionId,
    productoId: 12,
    tipo: 'TRANSFERENCIA',
    motivo: 'TRANSFERENCIA',
    usuario,
    comentario: null,
    fecha,
  } as const;
  const data: MovimientoRegistradoData = {
    operacionId,
    tipoOperacion: 'TRANSFERENCIA',
    usuario,
    comentario: null,
    revierteA: null,
    timestamp: fecha,
    movimientos: [
      { ...line, id: 21, bodegaId: 3, cantidad: -6, cantidadAnterior: 10, cantidadPosterior: 4, version: 7 },
      { ...line, id: 22, bodegaId: 4, cantidad: 6, cantidadAnterior: 0, cantidadPosterior: 6, version: 1 },
    ],
  };
  return { subject: `/operaciones/${operacionId}`, data };
}

/** StockBajo after the transfer, StockRepuesto after the entry that follows it. */
function stockEvent(
  type: 'StockBajo' | 'StockRepuesto',
  options: SampleOptions,
  at: Date,
): { subject: string; data: StockUmbralData } {
  const productoId = options.id ?? 12;
  const bajo = type === 'StockBajo';
  const data: StockUmbralData = {
    bodegaId: 3,
    productoId,
    cantidad: bajo ? 4 : 9,
    umbralMinimo: 5,
    version: bajo ? 7 : 8,
    operacionId: bajo ? 9 : 10,
    usuario: options.usuario ?? 'ana',
    timestamp: formatLocalUtc(at),
  };
  return { subject: `/bodegas/3/existencias/${productoId}`, data };
}

/**
 * ReservaDescubierta after a count of product 12 in warehouse 3 found 1 unit where order `pedido-1024` held 4 (and 2
 * more in warehouse 4): the hold ends on both levels, 3 units short in warehouse 3.
 */
function reservaDescubiertaEvent(options: SampleOptions, at: Date): { subject: string; data: ReservaDescubiertaData } {
  const reservaId = options.id ?? 31;
  const data: ReservaDescubiertaData = {
    reservaId,
    referencia: options.nombre ?? 'pedido-1024',
    estado: 'DESCUBIERTA',
    expiraEn: new Date(at.getTime() + 15 * 60_000).toISOString(),
    version: 2,
    lineas: [
      { id: 51, bodegaId: 3, productoId: 12, cantidad: 4, consumida: 0, retenida: 0 },
      { id: 52, bodegaId: 4, productoId: 12, cantidad: 2, consumida: 0, retenida: 0 },
    ],
    faltante: [{ bodegaId: 3, productoId: 12, unidades: 3 }],
    usuario: options.usuario ?? 'ana',
    timestamp: formatLocalUtc(at),
  };
  return { subject: `/reservas/${reservaId}`, data };
}

/** One envelope of `type`, as our producers build it (fresh UUID id). */
export function sampleEnvelope(type: EventType, options: SampleOptions = {}): EventEnvelope {
  const at = options.at ?? DEFAULT_AT;
  const { subject, data } =
    type === 'MovimientoRegistrado'
      ? movimientoEvent(options, at)
      : type === 'StockBajo' || type === 'StockRepuesto'
        ? stockEvent(type, options, at)
        : type === 'ReservaDescubierta'
          ? reservaDescubiertaEvent(options, at)
          : recordEvent(type, options, at);
  return buildEnvelope({
    namespace: options.namespace ?? 'Service',
    type,
    source: EVENT_SOURCE[type],
    subject,
    data,
    at,
  });
}
