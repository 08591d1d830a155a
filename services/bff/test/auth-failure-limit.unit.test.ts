/**
 * The failed-authentication limit on its own, with a clock the test moves:
 * who is refused, for how long, and that a window's end lets a client try
 * again. (abuse.test.ts drives it over HTTP, pipelined bursts included.)
 */
import type { Request } from 'express';
import { createAuthFailureLimit } from '../src/http/auth-failure-limit';

const WINDOW_MS = 15 * 60_000;
const from = (ip: string) => ({ ip, socket: {} }) as unknown as Request;

function limitWithClock(maxFailures: number) {
  const clock = { now: 1_000_000 };
  return { clock, limit: createAuthFailureLimit(maxFailures, () => clock.now) };
}

describe('createAuthFailureLimit', () => {
  test('refuses a client from its maxFailures-th failure on, counted one by one with no gap', () => {
    const { limit } = limitWithClock(3);
    const seen: boolean[] = [];
    for (let i = 0; i < 5; i++) {
      seen.push(limit.refusal(from('10.0.0.1')) !== undefined);
      limit.recordFailure(from('10.0.0.1'));
    }
    expect(seen).toEqual([false, false, false, true, true]);
  });

  test('Retry-After is the rest of the window that began at the first failure', () => {
    const { clock, limit } = limitWithClock(2);
    limit.recordFailure(from('10.0.0.1'));
    clock.now += 60_000;
    limit.recordFailure(from('10.0.0.1'));
    expect(limit.refusal(from('10.0.0.1'))?.retryAfterSeconds).toBe((WINDOW_MS - 60_000) / 1000);
  });

  test('once the window ends the client may try again, with a fresh count', () => {
    const { clock, limit } = limitWithClock(1);
    limit.recordFailure(from('10.0.0.1'));
    expect(limit.refusal(from('10.0.0.1'))).toBeDefined();
    clock.now += WINDOW_MS;
    expect(limit.refusal(from('10.0.0.1'))).toBeUndefined();
    limit.recordFailure(from('10.0.0.1'));
    expect(limit.refusal(from('10.0.0.1'))).toBeDefined();
  });

  test.each([
    ['another IPv4 address', '10.0.0.2', false],
    ['another IPv6 address in the same /56', '2001:db8:0:ff::2', true],
    ['an IPv6 address in another /56', '2001:db8:0:100::1', false],
  ])('clients are counted apart by address: %s', (_case, other, sharesCount) => {
    const { limit } = limitWithClock(1);
    limit.recordFailure(from(other.includes(':') ? '2001:db8:0:ff::1' : '10.0.0.1'));
    expect(limit.refusal(from(other)) !== undefined).toBe(sharesCount);
  });
});
