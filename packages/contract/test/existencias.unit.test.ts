import {
  cantidadMinima,
  exigeVersion,
  mismaBodega,
  motivoAdmitido,
  MOTIVOS_DE_CLIENTE,
  MOTIVOS_POR_TIPO,
  STOCK_MENSAJES,
  TIPOS_MOVIMIENTO_REGISTRABLES,
} from '../src';

// The stock rules every surface refuses early with and bodega-svc judges by (docs/contract.md §10.2).
describe('stock rules, once', () => {
  it.each([
    ['ENTRADA', 'RECEPCION', true],
    ['ENTRADA', 'DEVOLUCION', true],
    ['ENTRADA', 'VENTA', false],
    ['ENTRADA', 'CONTEO', false],
    ['SALIDA', 'VENTA', true],
    ['SALIDA', 'MERMA', true],
    ['SALIDA', 'RECEPCION', false],
    ['AJUSTE', 'CONTEO', true],
    ['AJUSTE', 'MERMA', true],
    ['AJUSTE', 'VENTA', false],
    ['AJUSTE', 'STOCK_INICIAL', false],
    ['ENTRADA', 'MIGRACION', false],
    ['SALIDA', 'no-es-un-motivo', false],
  ] as const)('%s with motivo %s is admitted: %s', (tipo, motivo, admitido) => {
    expect(motivoAdmitido(tipo, motivo)).toBe(admitido);
  });

  it('a client may name every motivo a tipo admits, and none only the services write', () => {
    for (const tipo of TIPOS_MOVIMIENTO_REGISTRABLES) {
      for (const motivo of MOTIVOS_POR_TIPO[tipo]) expect(MOTIVOS_DE_CLIENTE).toContain(motivo);
    }
    expect(MOTIVOS_DE_CLIENTE).not.toContain('STOCK_INICIAL');
    expect(MOTIVOS_DE_CLIENTE).not.toContain('MIGRACION');
  });

  it('ENTRADA and SALIDA move at least one unit; an AJUSTE may count 0, and only it needs the version', () => {
    expect(TIPOS_MOVIMIENTO_REGISTRABLES.map((t) => [t, cantidadMinima(t), exigeVersion(t)])).toEqual([
      ['ENTRADA', 1, false],
      ['SALIDA', 1, false],
      ['AJUSTE', 0, true],
    ]);
  });

  it('a transfer needs two different warehouses', () => {
    expect(mismaBodega(3, 3)).toBe(true);
    expect(mismaBodega(3, 4)).toBe(false);
  });

  it('each rule has one wording, a warehouse "distinta" and the admitted motivos listed', () => {
    expect(STOCK_MENSAJES.mismaBodega).toBe('debe ser distinta de origenId');
    expect(STOCK_MENSAJES.cantidadPositiva).toBe('debe ser al menos 1 en una ENTRADA o una SALIDA');
    expect(STOCK_MENSAJES.motivoDeTipo('ENTRADA')).toBe(
      'no es un motivo de ENTRADA (admitidos: RECEPCION, DEVOLUCION)',
    );
    expect(STOCK_MENSAJES.ajusteSinVersion('version', 'existencia(bodegaId, productoId) { version }')).toBe(
      'un AJUSTE (un conteo) requiere version, la de la existencia contada: léala en existencia(bodegaId, productoId) { version }',
    );
  });
});
