import { backoffDelayMs } from '@inventario/platform';

describe('backoffDelayMs', () => {
  const policy = { baseMs: 250, maxMs: 10_000 };

  it('waits baseMs after the first failure and doubles after each one', () => {
    expect([1, 2, 3, 4, 5, 6].map((attempt) => backoffDelayMs(attempt, policy))).toEqual([
      250, 500, 1000, 2000, 4000, 8000,
    ]);
  });

  it('never waits longer than maxMs, however many failures', () => {
    expect(backoffDelayMs(7, policy)).toBe(10_000);
    expect(backoffDelayMs(10_000, policy)).toBe(10_000);
  });

  it('reads a count below 1 as the first attempt', () => {
    expect(backoffDelayMs(0, policy)).toBe(250);
    expect(backoffDelayMs(-3, policy)).toBe(250);
  });
});
