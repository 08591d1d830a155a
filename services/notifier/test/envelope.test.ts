import type { EventEnvelope } from '@inventario/platform';
import { MAX_LONG_TEXT_UNITS, MAX_SHORT_TEXT_UNITS } from '../src/events/envelope';
import { bodegaCreatedHandler } from '../src/handlers/bodega-created-handler';
import { productoCreatedHandler } from '../src/handlers/producto-created-handler';
import { productoDeletedHandler } from '../src/handlers/producto-deleted-handler';
import { sampleEnvelope } from '../src/sample-events';

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

describe('event data no service produces', () => {
  it.each([
    ['a descripcion longer than any TEXT value', { descripcion: 'x'.repeat(MAX_LONG_TEXT_UNITS + 1) }, /data\.descripcion/],
    ['a nombre far longer than VARCHAR(255)', { nombre: 'x'.repeat(MAX_SHORT_TEXT_UNITS + 1) }, /data\.nombre/],
  ])('is refused, naming the field: %s', (_case, data, reason) => {
    const preparation = productoCreatedHandler.prepare(withData(sampleEnvelope('ProductoCreado'), data), 'Service');
    expect(preparation).toMatchObject({ ok: false, reason: expect.stringMatching(reason) });
  });
});
