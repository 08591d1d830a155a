/**
 * The stock rules of domain/existencia.ts, free of I/O: how a command's
 * lines are planned from the locked state, and when it is refused. The
 * store's tests and the model-based test check the same rules against the
 * database; these pin each rule to its own case.
 */
import { FailedPreconditionError, InvalidArgumentError } from '@inventario/platform';
import {
  cambiosDeReverso,
  clave,
  planOperation,
  validateAsignacion,
  validateMovimiento,
  validateTransferencia,
  type BodegaActual,
  type Cambio,
  type NivelActual,
  type Operacion,
} from '../src/domain/existencia';

function nivel(
  bodegaId: number,
  productoId: number,
  cantidad: number,
  version: number,
  umbralMinimo: number | null = null,
): NivelActual {
  return { bodegaId, productoId, existe: true, cantidad, umbralMinimo, version };
}

function estado(niveles: NivelActual[]): Map<string, NivelActual> {
  return new Map(niveles.map((n) => [clave(n.bodegaId, n.productoId), n]));
}

function bodegas(...b: BodegaActual[]): Map<number, BodegaActual> {
  return new Map(b.map((x) => [x.id, x]));
}

const salida = (cantidad: number): Cambio => ({
  bodegaId: 1,
  productoId: 7,
  tipo: 'SALIDA',
  motivo: 'VENTA',
  delta: -cantidad,
});
const entrada = (cantidad: number): Cambio => ({
  bodegaId: 1,
  productoId: 7,
  tipo: 'ENTRADA',
  motivo: 'RECEPCION',
  delta: cantidad,
});

function refusal(run: () => unknown): FailedPreconditionError {
  try {
    run();
  } catch (err) {
    if (err instanceof FailedPreconditionError) return err;
    throw err;
  }
  throw new Error('expected a refusal');
}

describe('planOperation', () => {
  const central = { id: 1, capacidad: 100, ocupacion: 10 };

  it('writes one line with the level before and after, and the next version', () => {
    const plan = planOperation([salida(3)], estado([nivel(1, 7, 10, 4)]), bodegas(central));
    expect(plan.lineas).toEqual([
      expect.objectContaining({
        cantidad: -3,
        cantidadAnterior: 10,
        cantidadPosterior: 7,
        version: 5,
        nivel: { existe: true, cantidad: 7, umbralMinimo: null, creado: false },
      }),
    ]);
    expect(plan.ocupacion.get(1)).toBe(-3);
  });

  it('refuses a level below zero with the units there are and those asked', () => {
    const err = refusal(() => planOperation([salida(11)], estado([nivel(1, 7, 10, 4)]), bodegas(central)));
    expect(err.reason).toBe('STOCK_INSUFICIENTE');
    expect(err.datos).toMatchObject({ disponible: 10, solicitado: 11 });
  });

  it('allows a level of exactly zero', () => {
    expect(
      planOperation([salida(10)], estado([nivel(1, 7, 10, 4)]), bodegas(central)).lineas[0]!.cantidadPosterior,
    ).toBe(0);
  });

  it('refuses passing the capacity, with capacity, occupancy and the units asked', () => {
    const err = refusal(() => planOperation([entrada(91)], estado([nivel(1, 7, 10, 4)]), bodegas(central)));
    expect(err.reason).toBe('CAPACIDAD_EXCEDIDA');
    expect(err.datos).toMatchObject({ capacidad: 100, ocupacion: 10, solicitado: 91 });
  });

  it('fills a warehouse to exactly its capacity', () => {
    expect(planOperation([entrada(90)], estado([nivel(1, 7, 10, 4)]), bodegas(central)).ocupacion.get(1)).toBe(90);
  });

  it('never refuses on capacity a write that frees units, even in an overfull warehouse', () => {
    const llena = { id: 1, capacidad: 5, ocupacion: 10 };
    expect(planOperation([salida(1)], estado([nivel(1, 7, 10, 4)]), bodegas(llena)).lineas).toHaveLength(1);
  });

  it('creates a missing level continuing the versions its lines reached', () => {
    const retirado: NivelActual = {
      bodegaId: 1,
      productoId: 7,
      existe: false,
      cantidad: 0,
      umbralMinimo: null,
      version: 6,
    };
    const plan = planOperation(
      [{ bodegaId: 1, productoId: 7, tipo: 'AJUSTE', motivo: 'ASIGNACION', fijar: 4 }],
      estado([retirado]),
      bodegas(central),
    );
    expect(plan.lineas[0]).toMatchObject({
      version: 7,
      cantidadAnterior: 0,
      cantidadPosterior: 4,
      nivel: { existe: true, creado: true },
    });
  });

  it('writes a line even when a set changes nothing (a count that confirms the stock)', () => {
    const plan = planOperation(
      [{ bodegaId: 1, productoId: 7, tipo: 'AJUSTE', motivo: 'CONTEO', fijar: 10 }],
      estado([nivel(1, 7, 10, 4)]),
      bodegas(central),
    );
    expect(plan.lineas[0]).toMatchObject({ cantidad: 0, version: 5 });
  });

  it('removes a level with a line writing out all its units', () => {
    const plan = planOperation(
      [{ bodegaId: 1, productoId: 7, tipo: 'SALIDA', motivo: 'RETIRO', retirar: true }],
      estado([nivel(1, 7, 10, 4, 20)]),
      bodegas(central),
    );
    expect(plan.lineas[0]).toMatchObject({
      cantidad: -10,
      cantidadPosterior: 0,
      nivel: { existe: false },
      umbral: null,
    });
  });

  it('checks a transfer as one: both lines or none', () => {
    const destino = { id: 2, capacidad: 3, ocupacion: 0 };
    const cambios: Cambio[] = [
      { bodegaId: 1, productoId: 7, tipo: 'TRANSFERENCIA', motivo: 'TRANSFERENCIA', delta: -5 },
      { bodegaId: 2, productoId: 7, tipo: 'TRANSFERENCIA', motivo: 'TRANSFERENCIA', delta: 5 },
    ];
    expect(refusal(() => planOperation(cambios, estado([nivel(1, 7, 10, 4)]), bodegas(central, destino))).reason).toBe(
      'CAPACIDAD_EXCEDIDA',
    );
  });

  describe('low-stock edges (low: cantidad <= umbralMinimo)', () => {
    it.each<[string, NivelActual, Cambio, 'BAJO' | 'REPUESTO' | null]>([
      ['crossing down to the threshold is BAJO', nivel(1, 7, 6, 1, 5), salida(1), 'BAJO'],
      ['staying low is nothing', nivel(1, 7, 5, 1, 5), salida(1), null],
      ['going back above is REPUESTO', nivel(1, 7, 5, 1, 5), entrada(1), 'REPUESTO'],
      ['staying above is nothing', nivel(1, 7, 9, 1, 5), salida(1), null],
      ['no threshold is never low', nivel(1, 7, 1, 1, null), salida(1), null],
      [
        'a threshold raised over the units is BAJO',
        nivel(1, 7, 8, 1, 5),
        { bodegaId: 1, productoId: 7, tipo: 'AJUSTE', motivo: 'ASIGNACION', fijar: 8, umbralMinimo: 10 },
        'BAJO',
      ],
      [
        'a threshold removed from a low level is REPUESTO',
        nivel(1, 7, 2, 1, 5),
        { bodegaId: 1, productoId: 7, tipo: 'AJUSTE', motivo: 'ASIGNACION', fijar: 2, umbralMinimo: null },
        'REPUESTO',
      ],
      [
        'removing a low level is nothing',
        nivel(1, 7, 2, 1, 5),
        { bodegaId: 1, productoId: 7, tipo: 'SALIDA', motivo: 'RETIRO', retirar: true },
        null,
      ],
    ])('%s', (_name, antes, cambio, umbral) => {
      expect(planOperation([cambio], estado([antes]), bodegas(central)).lineas[0]!.umbral).toBe(umbral);
    });

    it('a level created at or below its threshold is BAJO', () => {
      const plan = planOperation(
        [{ bodegaId: 1, productoId: 7, tipo: 'AJUSTE', motivo: 'ASIGNACION', fijar: 2, umbralMinimo: 5 }],
        new Map(),
        bodegas(central),
      );
      expect(plan.lineas[0]!.umbral).toBe('BAJO');
    });
  });
});

describe('cambiosDeReverso', () => {
  const linea = {
    id: 1,
    operacionId: 9,
    usuario: 'ana',
    comentario: null,
    fecha: new Date(),
    cantidadAnterior: 0,
    cantidadPosterior: 0,
    version: 1,
  };
  const transferencia: Operacion = {
    id: 9,
    tipo: 'TRANSFERENCIA',
    usuario: 'ana',
    comentario: null,
    fecha: new Date(),
    revierteA: null,
    revertidaPor: null,
    movimientos: [
      { ...linea, bodegaId: 1, productoId: 7, tipo: 'TRANSFERENCIA', motivo: 'TRANSFERENCIA', cantidad: -5 },
      { ...linea, bodegaId: 2, productoId: 7, tipo: 'TRANSFERENCIA', motivo: 'TRANSFERENCIA', cantidad: 5 },
    ],
  };

  it('undoes each line, last first, keeping its type, with reason REVERSO', () => {
    expect(cambiosDeReverso(transferencia)).toEqual([
      { bodegaId: 2, productoId: 7, tipo: 'TRANSFERENCIA', motivo: 'REVERSO', delta: -5 },
      { bodegaId: 1, productoId: 7, tipo: 'TRANSFERENCIA', motivo: 'REVERSO', delta: 5 },
    ]);
  });

  it.each(['REVERSO', 'PRODUCTO_ELIMINADO', 'BODEGA_ELIMINADA'] as const)('refuses to reverse a %s', (tipo) => {
    expect(refusal(() => cambiosDeReverso({ ...transferencia, tipo })).reason).toBe('OPERACION_NO_REVERSIBLE');
  });

  it('refuses to reverse twice', () => {
    expect(refusal(() => cambiosDeReverso({ ...transferencia, revertidaPor: 10 })).reason).toBe(
      'OPERACION_YA_REVERTIDA',
    );
  });
});

describe('validation', () => {
  function violations(run: () => unknown): string[] {
    try {
      run();
    } catch (err) {
      if (err instanceof InvalidArgumentError) return err.violations.map((v) => v.campo);
      throw err;
    }
    return [];
  }

  it('requires the level version for a count', () => {
    expect(
      violations(() =>
        validateMovimiento({ bodegaId: 1, productoId: 2, tipo: 'AJUSTE', motivo: undefined, cantidad: 3 }),
      ),
    ).toEqual(['expectedVersion']);
  });

  it("gives each movement type its default reason and refuses another type's", () => {
    expect(
      validateMovimiento({ bodegaId: 1, productoId: 2, tipo: 'SALIDA', motivo: undefined, cantidad: 3 }).motivo,
    ).toBe('VENTA');
    expect(
      violations(() =>
        validateMovimiento({ bodegaId: 1, productoId: 2, tipo: 'ENTRADA', motivo: 'VENTA', cantidad: 3 }),
      ),
    ).toEqual(['motivo']);
  });

  it('refuses a transfer type as a movement and zero units to move', () => {
    expect(
      violations(() =>
        validateMovimiento({ bodegaId: 1, productoId: 2, tipo: 'TRANSFERENCIA', motivo: undefined, cantidad: 0 }),
      ),
    ).toEqual(['tipo', 'cantidad']);
  });

  it('removes a threshold only when asked alone', () => {
    expect(
      validateAsignacion({ bodegaId: 1, productoId: 2, cantidad: 3, quitarUmbralMinimo: true }).umbralMinimo,
    ).toBeNull();
    expect(validateAsignacion({ bodegaId: 1, productoId: 2, cantidad: 3 }).umbralMinimo).toBeUndefined();
    expect(
      violations(() =>
        validateAsignacion({ bodegaId: 1, productoId: 2, cantidad: 3, umbralMinimo: 4, quitarUmbralMinimo: true }),
      ),
    ).toEqual(['umbralMinimo']);
  });

  it('refuses a transfer to the same warehouse, naming destinoId', () => {
    expect(violations(() => validateTransferencia({ productoId: 1, origenId: 3, destinoId: 3, cantidad: 1 }))).toEqual([
      'destinoId',
    ]);
  });
});
