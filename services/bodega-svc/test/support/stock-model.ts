/**
 * A pure model of bodega-svc's stock (docs/contract.md §10), written from
 * the contract and independently of src/domain/existencia.ts, for the
 * model-based property test: for each command it predicts the service's
 * answer (the refusal and its reason, or the operations and lines written),
 * and after the service answered it commits that prediction, so the test
 * can compare the model with the database after every step.
 *
 * Refusals are predicted in the order the contract's rules are checked: a
 * deleted product, then a missing warehouse, then the level's version, then
 * the units (a level below zero, in the order of the lines), then the
 * capacity (on each warehouse's net change).
 */

export type Motivo =
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
  | 'MIGRACION';
export type TipoLinea = 'ENTRADA' | 'SALIDA' | 'TRANSFERENCIA' | 'AJUSTE';
export type TipoOp =
  | 'ASIGNACION'
  | 'RETIRO'
  | 'ENTRADA'
  | 'SALIDA'
  | 'AJUSTE'
  | 'TRANSFERENCIA'
  | 'REVERSO'
  | 'PRODUCTO_ELIMINADO'
  | 'BODEGA_ELIMINADA';

export interface LineaModelo {
  bodegaId: number;
  productoId: number;
  tipo: TipoLinea;
  motivo: Motivo;
  cantidad: number;
  cantidadAnterior: number;
  cantidadPosterior: number;
  version: number;
}

export interface OperacionModelo {
  tipo: TipoOp;
  revierteA: number | null;
  lineas: LineaModelo[];
}

export interface NivelModelo {
  cantidad: number;
  umbralMinimo: number | null;
  version: number;
}

/** A refusal as the client sees it: the gRPC status name and the trailer `inventario-error-reason`. */
export interface Rechazo {
  code: 'NOT_FOUND' | 'FAILED_PRECONDITION' | 'ABORTED';
  reason?: string;
}

/** What one command does: refused (nothing changes), or done with these operations and this answer. */
export type Prediccion<T> =
  | { ok: false; rechazo: Rechazo }
  | { ok: true; valor: T; operaciones: OperacionModelo[]; aplicar: (ids: number[]) => void };

export function clave(bodegaId: number, productoId: number): string {
  return `${bodegaId}:${productoId}`;
}

/** What an operation asks of one level. */
type Cambio =
  | { bodegaId: number; productoId: number; tipo: TipoLinea; motivo: Motivo; delta: number }
  | {
      bodegaId: number;
      productoId: number;
      tipo: TipoLinea;
      motivo: Motivo;
      fijar: number;
      umbralMinimo?: number | null;
    }
  | { bodegaId: number; productoId: number; tipo: TipoLinea; motivo: Motivo; retirar: true };

class Refused extends Error {
  constructor(readonly rechazo: Rechazo) {
    super(rechazo.reason ?? rechazo.code);
  }
}

const refuse = (code: Rechazo['code'], reason?: string): never => {
  throw new Refused(reason === undefined ? { code } : { code, reason });
};

export class StockModel {
  /** Warehouses that exist, by id. */
  readonly bodegas = new Map<number, { capacidad: number; ocupacion: number }>();
  /** Levels that exist, by clave. */
  readonly niveles = new Map<string, NivelModelo>();
  /** The last line version of each (warehouse, product) that ever had a line; removed levels keep theirs. */
  readonly versiones = new Map<string, number>();
  readonly eliminados = new Set<number>();
  /** Every operation written, by id. */
  readonly operaciones = new Map<number, OperacionModelo & { revertida: boolean }>();

  agregarBodega(id: number, capacidad: number): void {
    this.bodegas.set(id, { capacidad, ocupacion: 0 });
  }

  /** `umbralMinimo`: undefined keeps the threshold, null removes it. */
  asignar(
    bodegaId: number,
    productoId: number,
    cantidad: number,
    umbralMinimo?: number | null,
  ): Prediccion<NivelModelo> {
    return this.predecir(() => {
      this.vivo(productoId);
      this.bodega(bodegaId);
      const cambio: Cambio = {
        bodegaId,
        productoId,
        tipo: 'AJUSTE',
        motivo: 'ASIGNACION',
        fijar: cantidad,
        umbralMinimo,
      };
      return this.operacion('ASIGNACION', null, [cambio], (niveles) => niveles.get(clave(bodegaId, productoId))!);
    });
  }

  /** ENTRADA or SALIDA of `cantidad` units; AJUSTE to `cantidad`, against `expectedVersion`. */
  movimiento(
    tipo: 'ENTRADA' | 'SALIDA' | 'AJUSTE',
    bodegaId: number,
    productoId: number,
    cantidad: number,
    expectedVersion?: number,
  ): Prediccion<null> {
    return this.predecir(() => {
      this.vivo(productoId);
      this.bodega(bodegaId);
      if (tipo === 'AJUSTE') {
        if (expectedVersion !== (this.niveles.get(clave(bodegaId, productoId))?.version ?? 0))
          refuse('ABORTED', 'VERSION_MISMATCH');
        return this.operacion(
          'AJUSTE',
          null,
          [{ bodegaId, productoId, tipo, motivo: 'CONTEO', fijar: cantidad }],
          () => null,
        );
      }
      const delta = tipo === 'ENTRADA' ? cantidad : -cantidad;
      return this.operacion(
        tipo,
        null,
        [{ bodegaId, productoId, tipo, motivo: tipo === 'ENTRADA' ? 'RECEPCION' : 'VENTA', delta }],
        () => null,
      );
    });
  }

  transferir(productoId: number, origenId: number, destinoId: number, cantidad: number): Prediccion<null> {
    return this.predecir(() => {
      this.vivo(productoId);
      this.bodega(origenId);
      this.bodega(destinoId);
      return this.operacion(
        'TRANSFERENCIA',
        null,
        [
          { bodegaId: origenId, productoId, tipo: 'TRANSFERENCIA', motivo: 'TRANSFERENCIA', delta: -cantidad },
          { bodegaId: destinoId, productoId, tipo: 'TRANSFERENCIA', motivo: 'TRANSFERENCIA', delta: cantidad },
        ],
        () => null,
      );
    });
  }

  revertir(operacionId: number): Prediccion<null> {
    return this.predecir(() => {
      const original = this.operaciones.get(operacionId);
      if (!original) return refuse('NOT_FOUND');
      if (
        original.tipo === 'REVERSO' ||
        original.tipo === 'PRODUCTO_ELIMINADO' ||
        original.tipo === 'BODEGA_ELIMINADA'
      ) {
        refuse('FAILED_PRECONDITION', 'OPERACION_NO_REVERSIBLE');
      }
      if (original.revertida) refuse('FAILED_PRECONDITION', 'OPERACION_YA_REVERTIDA');
      for (const l of original.lineas) this.vivo(l.productoId);
      for (const l of original.lineas) this.bodega(l.bodegaId);
      const cambios: Cambio[] = [...original.lineas].reverse().map((l) => ({
        bodegaId: l.bodegaId,
        productoId: l.productoId,
        tipo: l.tipo,
        motivo: 'REVERSO',
        delta: -l.cantidad,
      }));
      const prediccion = this.operacion('REVERSO', operacionId, cambios, () => null);
      const aplicar = prediccion.aplicar;
      return {
        ...prediccion,
        aplicar: (ids: number[]) => {
          aplicar(ids);
          original.revertida = true;
        },
      };
    });
  }

  /** RetirarExistencia: the units written out; NOT_FOUND (SIN_EXISTENCIAS) when there is no level. */
  retirar(bodegaId: number, productoId: number): Prediccion<{ existia: boolean; cantidadRetirada: number }> {
    return this.predecir((): Prediccion<{ existia: boolean; cantidadRetirada: number }> => {
      this.bodega(bodegaId);
      const nivel = this.niveles.get(clave(bodegaId, productoId));
      if (!nivel) return refuse('NOT_FOUND', 'SIN_EXISTENCIAS');
      const cantidadRetirada = nivel.cantidad;
      return this.operacion(
        'RETIRO',
        null,
        [{ bodegaId, productoId, tipo: 'SALIDA', motivo: 'RETIRO', retirar: true }],
        () => ({
          existia: true,
          cantidadRetirada,
        }),
      );
    });
  }

  cambiarCapacidad(bodegaId: number, capacidad: number): Prediccion<{ capacidad: number; ocupacion: number }> {
    return this.predecir(() => {
      const bodega = this.bodega(bodegaId);
      if (capacidad < bodega.ocupacion) refuse('FAILED_PRECONDITION', 'CAPACIDAD_INSUFICIENTE');
      return {
        ok: true as const,
        valor: { capacidad, ocupacion: bodega.ocupacion },
        operaciones: [],
        aplicar: () => void (bodega.capacidad = capacidad),
      };
    });
  }

  /** DeleteBodega: refused while it holds a level unless `retirarExistencias`; then one write-out operation. */
  eliminarBodega(
    bodegaId: number,
    retirarExistencias: boolean,
  ): Prediccion<{ existenciasRetiradas: number; unidadesRetiradas: number }> {
    return this.predecir(() => {
      this.bodega(bodegaId);
      const suyos = [...this.niveles.entries()].filter(([k]) => k.startsWith(`${bodegaId}:`));
      if (suyos.length > 0 && !retirarExistencias) refuse('FAILED_PRECONDITION', 'BODEGA_CON_EXISTENCIAS');
      const valor = {
        existenciasRetiradas: suyos.length,
        unidadesRetiradas: suyos.reduce((s, [, n]) => s + n.cantidad, 0),
      };
      const quitar = () => void this.bodegas.delete(bodegaId);
      if (suyos.length === 0) return { ok: true as const, valor, operaciones: [], aplicar: quitar };
      const cambios: Cambio[] = suyos.map(([k]) => ({
        bodegaId,
        productoId: Number(k.split(':')[1]),
        tipo: 'SALIDA',
        motivo: 'BODEGA_ELIMINADA',
        retirar: true,
      }));
      const prediccion = this.operacion('BODEGA_ELIMINADA', null, cambios, () => valor);
      return {
        ...prediccion,
        aplicar: (ids: number[]) => {
          prediccion.aplicar(ids);
          quitar();
        },
      };
    });
  }

  /** ProductoEliminado: recorded, and its stock written out everywhere in one operation. Idempotent. */
  eliminarProducto(productoId: number): Prediccion<null> {
    return this.predecir(() => {
      const suyos = [...this.niveles.keys()].filter((k) => k.endsWith(`:${productoId}`));
      const marcar = () => void this.eliminados.add(productoId);
      if (suyos.length === 0) return { ok: true as const, valor: null, operaciones: [], aplicar: marcar };
      const cambios: Cambio[] = suyos.map((k) => ({
        bodegaId: Number(k.split(':')[0]),
        productoId,
        tipo: 'SALIDA',
        motivo: 'PRODUCTO_ELIMINADO',
        retirar: true,
      }));
      const prediccion = this.operacion('PRODUCTO_ELIMINADO', null, cambios, () => null);
      return {
        ...prediccion,
        aplicar: (ids: number[]) => {
          prediccion.aplicar(ids);
          marcar();
        },
      };
    });
  }

  private predecir<T>(work: () => Prediccion<T>): Prediccion<T> {
    try {
      return work();
    } catch (err) {
      if (err instanceof Refused) return { ok: false, rechazo: err.rechazo };
      throw err;
    }
  }

  private vivo(productoId: number): void {
    if (this.eliminados.has(productoId)) refuse('FAILED_PRECONDITION', 'PRODUCTO_ELIMINADO');
  }

  private bodega(bodegaId: number): { capacidad: number; ocupacion: number } {
    return this.bodegas.get(bodegaId) ?? refuse('NOT_FOUND');
  }

  /**
   * The lines of one operation, worked out on a copy of the levels it
   * touches; refused when a level would go below zero or a warehouse gain
   * more units than it has room for. `aplicar` commits it with the ids the
   * service gave its operations.
   */
  private operacion<T>(
    tipo: TipoOp,
    revierteA: number | null,
    cambios: Cambio[],
    valor: (niveles: Map<string, NivelModelo>) => T,
  ): Prediccion<T> & { ok: true } {
    const niveles = new Map<string, NivelModelo | undefined>();
    const versiones = new Map<string, number>();
    const ocupacion = new Map<number, number>();
    const lineas: LineaModelo[] = [];
    for (const c of cambios) {
      const k = clave(c.bodegaId, c.productoId);
      const nivel = niveles.has(k) ? niveles.get(k) : this.niveles.get(k);
      const antes = nivel?.cantidad ?? 0;
      let despues: NivelModelo | undefined;
      const version = (versiones.get(k) ?? this.versiones.get(k) ?? 0) + 1;
      if ('delta' in c) {
        if (antes + c.delta < 0) refuse('FAILED_PRECONDITION', 'STOCK_INSUFICIENTE');
        despues = { cantidad: antes + c.delta, umbralMinimo: nivel?.umbralMinimo ?? null, version };
      } else if ('fijar' in c) {
        despues = {
          cantidad: c.fijar,
          umbralMinimo: c.umbralMinimo === undefined ? (nivel?.umbralMinimo ?? null) : c.umbralMinimo,
          version,
        };
      } else {
        despues = undefined;
      }
      const posterior = despues?.cantidad ?? 0;
      lineas.push({
        bodegaId: c.bodegaId,
        productoId: c.productoId,
        tipo: c.tipo,
        motivo: c.motivo,
        cantidad: posterior - antes,
        cantidadAnterior: antes,
        cantidadPosterior: posterior,
        version,
      });
      niveles.set(k, despues);
      versiones.set(k, version);
      ocupacion.set(c.bodegaId, (ocupacion.get(c.bodegaId) ?? 0) + posterior - antes);
    }
    for (const [bodegaId, delta] of ocupacion) {
      const bodega = this.bodega(bodegaId);
      if (delta > 0 && bodega.ocupacion + delta > bodega.capacidad) refuse('FAILED_PRECONDITION', 'CAPACIDAD_EXCEDIDA');
    }
    const operacion: OperacionModelo = { tipo, revierteA, lineas };
    const despues = new Map([...niveles].flatMap(([k, n]) => (n ? [[k, n] as const] : [])));
    return {
      ok: true,
      valor: valor(despues),
      operaciones: [operacion],
      aplicar: ([id]) => {
        for (const [k, n] of niveles) {
          if (n) this.niveles.set(k, n);
          else this.niveles.delete(k);
        }
        for (const [k, v] of versiones) this.versiones.set(k, v);
        for (const [bodegaId, delta] of ocupacion) this.bodega(bodegaId).ocupacion += delta;
        this.operaciones.set(id!, { ...operacion, revertida: false });
      },
    };
  }
}
