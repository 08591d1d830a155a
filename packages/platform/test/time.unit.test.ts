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

  it.each([
    '0001-01-01T00:00:00.000Z',
    '0099-03-01T12:00:00.000Z',
    '0999-12-31T23:59:59.999Z',
    '1900-02-28T23:59:59.000Z',
    '1900-03-01T00:00:00.000Z',
    '1969-12-31T23:59:59.999Z',
    '1970-01-01T00:00:00.000Z',
    '2000-02-29T23:59:59.000Z',
    '2024-02-29T00:00:00.000Z',
    '2100-03-01T00:00:00.000Z',
    '9999-12-31T23:59:59.999Z',
  ])('writes %s as toISOString cut to the second (calendar edges)', (iso) => {
    const date = new Date(iso);
    expect(formatLocalUtc(date)).toBe(iso.slice(0, 19));
  });

  it('agrees with toISOString cut to the second across the years 1..9999 and beyond', () => {
    // A fixed stride through the whole range (every month, day and hour comes up), and the signed years outside it.
    const from = Date.UTC(-1000, 0, 1);
    const to = Date.UTC(11000, 0, 1);
    const stride = 1_234_567_891; // about 14.3 days, not a whole number of seconds
    let checked = 0;
    for (let ms = from; ms < to; ms += stride, checked++) {
      const date = new Date(ms);
      if (formatLocalUtc(date) !== date.toISOString().slice(0, 19)) {
        throw new Error(`${date.toISOString()}: ${formatLocalUtc(date)}`);
      }
    }
    expect(checked).toBeGreaterThan(300_000);
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
