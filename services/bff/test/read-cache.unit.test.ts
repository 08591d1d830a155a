/**
 * The read cache's coherence rules as pure logic (src/cache/read-cache.ts):
 * what a fill may insert given what happened while it was in flight.
 */
import { ReadCache, type FillTicket } from '../src/cache/read-cache';

const producto = (id: number, version: number, bodegaId: number | null = null) => ({
  id,
  version,
  nombre: `p${version}`,
  bodegaId,
});
const bodega = (id: number, version: number, ocupacion = 0) => ({ id, version, ocupacion });

/** A cache already following its events (resumed). */
function serving(options: { maxEntries?: number; maxTouched?: number; ttlMs?: number } = {}): ReadCache {
  const cache = new ReadCache({
    maxEntries: options.maxEntries ?? 100,
    ttlMs: options.ttlMs ?? 60_000,
    maxTouched: options.maxTouched,
  });
  expect(cache.resume(cache.epoch)).toBe(true);
  return cache;
}

function ticketOf(cache: ReadCache): FillTicket {
  const ticket = cache.ticket();
  expect(ticket).toBeDefined();
  return ticket!;
}

describe('read cache fills', () => {
  test('a fill with no change in flight is inserted and then served', () => {
    const cache = serving();
    expect(cache.fill('producto', producto(1, 1), ticketOf(cache))).toBe(true);
    expect(cache.get('producto', 1)).toEqual(producto(1, 1));
  });

  test('an invalidation arriving while a fill is in flight prevents the insert', () => {
    const cache = serving();
    const ticket = ticketOf(cache);
    cache.touch('producto', 1, 'event', { version: 2 });
    expect(cache.fill('producto', producto(1, 1), ticket)).toBe(false);
    expect(cache.get('producto', 1)).toBeUndefined();
  });

  test('a touch without a version (a stock write) also refuses fills that began before it', () => {
    const cache = serving();
    const ticket = ticketOf(cache);
    cache.touch('bodega', 3, 'event');
    expect(cache.fill('bodega', bodega(3, 1, 10), ticket)).toBe(false);
    // A fill that began after the touch is inserted.
    expect(cache.fill('bodega', bodega(3, 1, 12), ticketOf(cache))).toBe(true);
  });

  test('a touch of another record does not refuse the fill', () => {
    const cache = serving();
    const ticket = ticketOf(cache);
    cache.touch('producto', 2, 'event');
    cache.touch('bodega', 1, 'event');
    expect(cache.fill('producto', producto(1, 1), ticket)).toBe(true);
  });

  test('an older version never replaces a newer one', () => {
    const cache = serving();
    const early = ticketOf(cache);
    expect(cache.fill('producto', producto(1, 3), ticketOf(cache))).toBe(true);
    expect(cache.fill('producto', producto(1, 2), early)).toBe(false);
    expect(cache.get('producto', 1)).toEqual(producto(1, 3));
    // A newer one does.
    expect(cache.fill('producto', producto(1, 4), ticketOf(cache))).toBe(true);
    expect(cache.get('producto', 1)).toEqual(producto(1, 4));
  });

  test('a fill older than a version an event announced is refused even with a later ticket', () => {
    const cache = serving();
    cache.touch('producto', 1, 'event', { version: 5 });
    expect(cache.fill('producto', producto(1, 4), ticketOf(cache))).toBe(false);
    expect(cache.fill('producto', producto(1, 5), ticketOf(cache))).toBe(true);
  });

  test('a read refused for a change in flight keeps a later-ticketed fill of older data out (monotonic reads)', () => {
    const cache = serving();
    const first = ticketOf(cache); // begins first, reads the database last: version 2
    cache.touch('producto', 1, 'write'); // an earlier write of this replica is answered
    const second = ticketOf(cache); // begins later, read the database before version 2: version 1
    expect(cache.fill('producto', producto(1, 2), first)).toBe(false); // answered to its client: version 2
    expect(cache.fill('producto', producto(1, 1), second)).toBe(false);
    expect(cache.get('producto', 1)).toBeUndefined();
  });

  test('two reads of one version that disagree (ocupacion moved) drop the entry instead of choosing', () => {
    const cache = serving();
    const ticket = ticketOf(cache);
    expect(cache.fill('bodega', bodega(1, 1, 7), ticket)).toBe(true);
    expect(cache.fill('bodega', bodega(1, 1, 5), ticket)).toBe(false);
    expect(cache.get('bodega', 1)).toBeUndefined();
    // Nor can a third fill in flight that read either.
    expect(cache.fill('bodega', bodega(1, 1, 7), ticket)).toBe(false);
    expect(cache.get('bodega', 1)).toBeUndefined();
  });

  test('a tombstone blocks resurrection by a fill, whenever it began', () => {
    const cache = serving();
    const before = ticketOf(cache);
    cache.touch('producto', 1, 'event', { version: 3, deleted: true });
    expect(cache.fill('producto', producto(1, 3), before)).toBe(false);
    expect(cache.fill('producto', producto(1, 3), ticketOf(cache))).toBe(false);
    expect(cache.get('producto', 1)).toBeUndefined();
  });

  test('an epoch change (a doubt) discards fills in flight, and bypass serves and inserts nothing', () => {
    const cache = serving();
    expect(cache.fill('producto', producto(2, 1), ticketOf(cache))).toBe(true);
    const ticket = ticketOf(cache);
    cache.bypass();
    expect(cache.bypassed).toBe(true);
    expect(cache.get('producto', 2)).toBeUndefined();
    expect(cache.ticket()).toBeUndefined();
    expect(cache.fill('producto', producto(1, 1), ticket)).toBe(false);
    expect(cache.resume(cache.epoch)).toBe(true);
    // Emptied: what was held before the doubt is gone, and the old ticket is still refused.
    expect(cache.get('producto', 2)).toBeUndefined();
    expect(cache.fill('producto', producto(1, 1), ticket)).toBe(false);
  });

  test('resume is refused when a doubt came after the follower read the epoch', () => {
    const cache = new ReadCache({ maxEntries: 10, ttlMs: 60_000 });
    const epoch = cache.epoch;
    cache.bypass();
    expect(cache.resume(epoch)).toBe(false);
    expect(cache.bypassed).toBe(true);
  });

  test('a forgotten touch still refuses fills that began before it (watermark)', () => {
    const cache = serving({ maxTouched: 2 });
    const ticket = ticketOf(cache);
    cache.touch('producto', 1, 'event');
    cache.touch('producto', 2, 'event');
    cache.touch('producto', 3, 'event'); // forgets the touch of 1
    expect(cache.fill('producto', producto(1, 1), ticket)).toBe(false);
    expect(cache.fill('producto', producto(1, 1), ticketOf(cache))).toBe(true);
  });

  test('a product read before its warehouse was unassigned or deleted is not inserted', () => {
    const cache = serving();
    const ticket = ticketOf(cache);
    cache.touch('bodega', 9, 'write', { deleted: true });
    expect(cache.fill('producto', producto(1, 1, 9), ticket)).toBe(false);
    expect(cache.fill('producto', producto(2, 1, 8), ticket)).toBe(true);
  });

  test("touching a warehouse's products drops every cached product that names it", () => {
    const cache = serving();
    cache.fill('producto', producto(1, 1, 9), ticketOf(cache));
    cache.fill('producto', producto(2, 1, 8), ticketOf(cache));
    cache.touchProductosOf(9, 'write');
    expect(cache.get('producto', 1)).toBeUndefined();
    expect(cache.get('producto', 2)).toBeDefined();
  });

  test('an entry evicted by size cannot be brought back by a fill that began before it was inserted', () => {
    const cache = serving({ maxEntries: 1 });
    const early = ticketOf(cache);
    expect(cache.fill('producto', producto(1, 2), ticketOf(cache))).toBe(true);
    expect(cache.fill('producto', producto(2, 1), ticketOf(cache))).toBe(true); // evicts 1
    expect(cache.fill('producto', producto(1, 1), early)).toBe(false);
  });

  test('cached records are frozen: no caller can change what the next one reads', () => {
    const cache = serving();
    cache.fill('producto', producto(1, 1), ticketOf(cache));
    expect(Object.isFrozen(cache.get('producto', 1))).toBe(true);
  });
});
