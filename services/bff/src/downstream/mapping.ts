import { formatLocalUtc } from '@inventario/platform';
import {
  ALERTA_SOBRE_NAMES,
  MOTIVO_MOVIMIENTO_NAMES,
  TIPO_MOVIMIENTO_NAMES,
  TIPO_OPERACION_NAMES,
  type Bodega as BodegaProto,
  type DiferenciaExistencia as DiferenciaExistenciaProto,
  type EnumNames,
  type Existencia as ExistenciaProto,
  type Movimiento as MovimientoProto,
  type Operacion as OperacionProto,
  type Producto as ProductoProto,
} from '@inventario/proto';
import type {
  Bodega,
  DiferenciaExistencia,
  Existencia,
  MotivoMovimiento,
  Producto,
  TipoMovimiento,
  TipoOperacion,
} from '@inventario/contract';
import type { Movimiento, Operacion, WriteOptions } from '../inventario/model';

/**
 * Generated proto types stop here: everything above src/downstream speaks
 * the BFF model (REST form, timestamps as `YYYY-MM-DDTHH:mm:ss` UTC).
 */

/** A response without its resource breaks the contract: a 500, not a guess. */
export function required<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`downstream response without ${what}`);
  return value;
}

/** The request fields of a safe write: its key (AIP-155 request_id) and the version it expects. */
export function safeWriteFields(write: WriteOptions): { requestId: string; expectedVersion: number | undefined } {
  return {
    requestId: write.idempotencyKey ?? '',
    expectedVersion: typeof write.ifMatch === 'number' ? write.ifMatch : undefined,
  };
}

/**
 * A write of one level: `*` asks that the level exist, and a tag that can never match (0) asks for
 * version 0 of an existing level, so bodega-svc answers 412 with the level's version (§10.2).
 */
export function nivelWriteFields(write: WriteOptions): {
  requestId: string;
  expectedVersion: number | undefined;
  requiereNivel: boolean | undefined;
} {
  return { ...safeWriteFields(write), requiereNivel: write.ifMatch === '*' || write.ifMatch === 0 ? true : undefined };
}

function timestamp(date: Date | undefined, what: string): string {
  return formatLocalUtc(required(date, what));
}

export function productoFromProto(p: ProductoProto): Producto {
  return {
    id: p.id,
    nombre: p.nombre,
    descripcion: p.descripcion ?? null,
    precio: p.precio,
    cantidadEnStock: p.cantidadEnStock,
    bodegaId: p.bodegaId ?? null,
    fechaCreacion: timestamp(p.fechaCreacion, 'producto.fechaCreacion'),
    fechaActualizacion: timestamp(p.fechaActualizacion, 'producto.fechaActualizacion'),
    version: p.version,
  };
}

export function bodegaFromProto(b: BodegaProto): Bodega {
  return {
    id: b.id,
    nombre: b.nombre,
    ubicacion: b.ubicacion ?? null,
    capacidad: b.capacidad,
    // Set in every answer of a bodega-svc that has the ledger; an older one holds no stock.
    ocupacion: b.ocupacion ?? 0,
    fechaCreacion: timestamp(b.fechaCreacion, 'bodega.fechaCreacion'),
    fechaActualizacion: timestamp(b.fechaActualizacion, 'bodega.fechaActualizacion'),
    version: b.version,
  };
}

/**
 * A proto enum and its REST strings (the names @inventario/proto gives:
 * `TIPO_MOVIMIENTO_ENTRADA` is `ENTRADA`). A value without a name
 * (UNSPECIFIED, or one a newer service added) breaks the contract: a 500,
 * not a guess.
 */
function enumCodec<N extends string>(names: EnumNames<N>) {
  return {
    fromProto(value: number, what: string): N {
      const name = names.name(value);
      if (name === undefined) throw new Error(`downstream ${what} ${value} outside the contract`);
      return name;
    },
    toProto: (name: N): number => names.value(name),
  };
}

export const tipoMovimientoCodec = enumCodec<TipoMovimiento>(TIPO_MOVIMIENTO_NAMES);
export const motivoMovimientoCodec = enumCodec<MotivoMovimiento>(MOTIVO_MOVIMIENTO_NAMES);
export const tipoOperacionCodec = enumCodec<TipoOperacion>(TIPO_OPERACION_NAMES);

export function existenciaFromProto(e: ExistenciaProto): Existencia {
  return {
    bodegaId: e.bodegaId,
    productoId: e.productoId,
    cantidad: e.cantidad,
    umbralMinimo: e.umbralMinimo ?? null,
    version: e.version,
    fechaCreacion: timestamp(e.fechaCreacion, 'existencia.fechaCreacion'),
    fechaActualizacion: timestamp(e.fechaActualizacion, 'existencia.fechaActualizacion'),
    reservada: e.reservada,
    disponible: e.disponible,
    // UNSPECIFIED: a bodega-svc from before thresholds on disponible, whose levels all watch cantidad.
    alertaSobre: ALERTA_SOBRE_NAMES.name(e.alertaSobre) ?? 'CANTIDAD',
  };
}

export function movimientoFromProto(m: MovimientoProto): Movimiento {
  return {
    id: m.id,
    operacionId: m.operacionId,
    bodegaId: m.bodegaId,
    productoId: m.productoId,
    tipo: tipoMovimientoCodec.fromProto(m.tipo, 'movimiento.tipo'),
    motivo: motivoMovimientoCodec.fromProto(m.motivo, 'movimiento.motivo'),
    cantidad: m.cantidad,
    cantidadAnterior: m.cantidadAnterior,
    cantidadPosterior: m.cantidadPosterior,
    version: m.version,
    usuario: m.usuario,
    comentario: m.comentario ?? null,
    fecha: timestamp(m.fecha, 'movimiento.fecha'),
  };
}

export function operacionFromProto(o: OperacionProto): Operacion {
  return {
    id: o.id,
    tipo: tipoOperacionCodec.fromProto(o.tipo, 'operacion.tipo'),
    usuario: o.usuario,
    comentario: o.comentario ?? null,
    fecha: timestamp(o.fecha, 'operacion.fecha'),
    revierteA: o.revierteA ?? null,
    revertidaPor: o.revertidaPor ?? null,
    movimientos: o.movimientos.map(movimientoFromProto),
  };
}

export function diferenciaFromProto(d: DiferenciaExistenciaProto): DiferenciaExistencia {
  if (d.tipo !== 'NIVEL' && d.tipo !== 'OCUPACION')
    throw new Error(`downstream diferencia.tipo ${JSON.stringify(d.tipo)} outside the contract`);
  return {
    tipo: d.tipo,
    bodegaId: d.bodegaId,
    productoId: d.tipo === 'OCUPACION' ? null : d.productoId,
    registrado: d.registrado,
    calculado: d.calculado,
  };
}
