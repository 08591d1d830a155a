/** The public timestamp form: ISO 8601 local form, no zone, always UTC, whole seconds. */
import { formatLocalUtc, nowToSecond } from '@inventario/platform';

describe('formatLocalUtc', () => {
  it.each([
    ['2026-11-22T14:03:07.000Z', '2026-11-22T14:03:07'],
    ['2026-11-22T14:03:07.999Z', '2026-11-22T14:03:07'],
    ['2026-11-22T23:59:59.500-03:00', '2026-11-23T02:59:59'],
    ['2026-01-01T00:00:00+05:30', '2025-12-31T18:30:00'],
    ['1999-12-31T23:59:59Z', '1999-12-31T23:59:59'],
  ])('renders %s as %s (UTC, milliseconds truncated, not rounded)', (iso, expected) => {
    expect(formatLocalUtc(new Date(iso))).toBe(expected);
  });
});

describe('nowToSecond', () => {
  it('is now, truncated to a whole second', () => {
    const before = Math.floor(Date.now() / 1000) * 1000;
    const now = nowToSecond().getTime();
    const after = Date.now();
    expect(now % 1000).toBe(0);
    expect(now).toBeGreaterThanOrEqual(before);
    expect(now).toBeLessThanOrEqual(after);
  });
});
