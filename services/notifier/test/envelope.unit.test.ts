import type { EventEnvelope } from '@inventario/platform';
import { MAX_LONG_TEXT_UNITS, MAX_SHORT_TEXT_UNITS } from '../src/events/envelope';
import { handlerFor } from '../src/handlers';
import { sampleEnvelope } from '../src/sample-events';

const productoCreatedHandler = handlerFor('ProductoCreado');
const productoDeletedHandler = handlerFor('ProductoEliminado');
const bodegaCreatedHandler = handlerFor('BodegaCreada');
const stockBajoHandler = handlerFor('StockBajo');

// The envelope check is about shape: whatever the services store passes,
// so a valid record is emailed, never dead-lettered for its size.

/** A sample envelope of the handler's type with `data` fields replaced. */
function withData(envelope: EventEnvelope, data: Record<string, unknown>): string {
  return JSON.stringify({ ...envelope, data: { ...envelope.data, ...data } });
}

/** The largest TEXT value, 65 535 UTF-8 bytes (32 767 two-byte characters and one more). */
const DESCRIPCION_65535_BYTES = 'ñ'.repeat(32_767) + 'a';
/** 255 characters as VARCHAR(255) counts them (510 UTF-16 units). */
const NOMBRE_255_EMOJI = '🍎'.repeat(255);

describe('event data a service accepts', () => {
  it.each([
    ['a descripcion of 20 000 characters', { descripcion: 'x'.repeat(20_000) }],
    ['a descripcion of 65 535 bytes (the TEXT column)', { descripcion: DESCRIPCION_65535_BYTES }],
    ['a descripcion of 65 535 one-byte characters', { descripcion: 'x'.repeat(65_535) }],
    ['a nombre of 255 emoji', { nombre: NOMBRE_255_EMOJI }],
    ['a usuario of 255 characters', { usuario: 'u'.repeat(255) }],
  ])('is prepared for an email: %s', (_case, data) => {
    const preparation = productoCreatedHandler.prepare(withData(sampleEnvelope('ProductoCreado'), data), 'Service');
    expect(preparation).toMatchObject({ ok: true });
  });

  it('prepares a warehouse whose nombre and ubicacion are 255 emoji each', () => {
    const payload = withData(sampleEnvelope('BodegaCreada'), { nombre: NOMBRE_255_EMOJI, ubicacion: NOMBRE_255_EMOJI });
    expect(bodegaCreatedHandler.prepare(payload, 'Service')).toMatchObject({ ok: true });
  });

  it('prepares a deletion whose nombre is 255 emoji', () => {
    const payload = withData(sampleEnvelope('ProductoEliminado'), { nombre: NOMBRE_255_EMOJI });
    expect(productoDeletedHandler.prepare(payload, 'Service')).toMatchObject({ ok: true });
  });
});

describe('StockBajo data', () => {
  /** docs/contract.md §10.4's example, as bodega-svc publishes it. */
  const CONTRACT_DATA = {
    bodegaId: 1,
    productoId: 2,
    cantidad: 4,
    umbralMinimo: 5,
    version: 7,
    operacionId: 9,
    usuario: 'admin',
    timestamp: '2026-11-25T10:05:00',
  };

  it('prepares the contract example, showing the level by its ids', () => {
    const preparation = stockBajoHandler.prepare(
      JSON.stringify({ ...sampleEnvelope('StockBajo'), data: CONTRACT_DATA }),
      'Service',
    );
    expect(preparation).toMatchObject({
      ok: true,
      prepared: {
        model: {
          event: { usuario: 'admin' },
          record: { productoId: '2', bodegaId: '1', cantidad: '4', umbralMinimo: '5', operacionId: '9' },
        },
      },
    });
  });

  it('prepares one without threshold or operation (shown in words), and a level at 0 units', () => {
    const payload = withData(sampleEnvelope('StockBajo'), { cantidad: 0, umbralMinimo: null, operacionId: null });
    expect(stockBajoHandler.prepare(payload, 'Service')).toMatchObject({
      ok: true,
      prepared: { model: { record: { cantidad: '0' } } },
    });
  });

  it.each([
    ['no cantidad', { cantidad: undefined }, /data\.cantidad/],
    ['a fractional cantidad', { cantidad: 1.5 }, /data\.cantidad/],
    ['no bodegaId', { bodegaId: undefined }, /data\.bodegaId/],
    ['a productoId of 0', { productoId: 0 }, /data\.productoId/],
  ])('refuses one with %s, naming the field', (_case, data, reason) => {
    const preparation = stockBajoHandler.prepare(withData(sampleEnvelope('StockBajo'), data), 'Service');
    expect(preparation).toMatchObject({ ok: false, reason: expect.stringMatching(reason) });
  });
});

describe('event data no service produces', () => {
  it.each([
    [
      'a descripcion longer than any TEXT value',
      { descripcion: 'x'.repeat(MAX_LONG_TEXT_UNITS + 1) },
      /data\.descripcion/,
    ],
    ['a nombre far longer than VARCHAR(255)', { nombre: 'x'.repeat(MAX_SHORT_TEXT_UNITS + 1) }, /data\.nombre/],
  ])('is refused, naming the field: %s', (_case, data, reason) => {
    const preparation = productoCreatedHandler.prepare(withData(sampleEnvelope('ProductoCreado'), data), 'Service');
    expect(preparation).toMatchObject({ ok: false, reason: expect.stringMatching(reason) });
  });
});
