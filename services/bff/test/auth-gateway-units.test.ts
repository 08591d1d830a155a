/**
 * The gateway's authentication parts on their own (issue 26 phase 2): the
 * failure limit's reservations, the per-name throttle and the
 * verified-credential cache, with clocks the tests move.
 */
import type { Request } from 'express';
import type { Autenticacion } from '../src/downstream/identidad-client';
import { createCredentialCache } from '../src/auth/credential-cache';
import { createUsuarioThrottle } from '../src/auth/usuario-throttle';
import { createAuthFailureLimit, type AuthSlot } from '../src/http/auth-failure-limit';
import { TooManyRequestsError } from '../src/http/http-errors';

const from = (ip: string) => ({ ip, socket: {} }) as unknown as Request;

describe('the failure limit with reservations', () => {
  test('concurrent checks cannot all pass: at most maxFailures slots are handed out before any settles', () => {
    const limit = createAuthFailureLimit(3);
    const answers = Array.from({ length: 10 }, () => limit.reserve(from('10.0.0.1')));
    expect(answers.filter((a) => !(a instanceof TooManyRequestsError))).toHaveLength(3);
    // A slot in flight counts for the plain check too (a cached login from the same address).
    expect(limit.refusal(from('10.0.0.1'))).toBeInstanceOf(TooManyRequestsError);
    expect(limit.refusal(from('10.0.0.2'))).toBeUndefined();
  });

  test('a released slot is given back; a failed one stays counted; each settles once', () => {
    const limit = createAuthFailureLimit(2);
    const first = limit.reserve(from('10.0.0.1')) as AuthSlot;
    const second = limit.reserve(from('10.0.0.1')) as AuthSlot;
    expect(limit.reserve(from('10.0.0.1'))).toBeInstanceOf(TooManyRequestsError);
    first.release();
    first.release();
    first.fail();
    const third = limit.reserve(from('10.0.0.1')) as AuthSlot;
    expect(third).not.toBeInstanceOf(TooManyRequestsError);
    second.fail();
    third.fail();
    third.fail();
    const refused = limit.reserve(from('10.0.0.1'));
    expect(refused).toBeInstanceOf(TooManyRequestsError);
    // Two real failures: the window's rest, not the in-flight 1 s.
    expect((refused as TooManyRequestsError).retryAfterSeconds).toBeGreaterThan(60);
  });

  test('slots only in flight ask to retry in a second', () => {
    const limit = createAuthFailureLimit(1);
    limit.reserve(from('10.0.0.1'));
    expect((limit.reserve(from('10.0.0.1')) as TooManyRequestsError).retryAfterSeconds).toBe(1);
  });
});

describe('the per-user-name throttle', () => {
  test('lets every attempt through until the failures, then one per interval, for that name only, case-insensitively', () => {
    const clock = { now: 0 };
    const throttle = createUsuarioThrottle(2, 1000, () => clock.now);
    expect(throttle.admit('Ana')).toBeUndefined();
    throttle.recordFailure('ana');
    throttle.recordFailure('ANA');
    expect(throttle.admit('ana')).toBeUndefined();
    expect(throttle.admit('Ana')).toBeInstanceOf(TooManyRequestsError);
    expect(throttle.admit('otro')).toBeUndefined();
    clock.now += 1000;
    expect(throttle.admit('ana')).toBeUndefined();
    // Not a lock-out: the window ends.
    clock.now += 15 * 60_000;
    expect(throttle.admit('ana')).toBeUndefined();
    expect(throttle.admit('ana')).toBeUndefined();
  });
});

function autenticacion(expiraEnMs: number): Autenticacion {
  return {
    principal: {
      id: 1,
      usuario: 'ana',
      tipo: 'HUMANO',
      metodoAuth: 'password',
      tokenId: null,
      credencialVersion: 1,
      permisos: new Map(),
    },
    asignaciones: [],
    firmado: 'x.y.z',
    firmadoExpiraEn: new Date(expiraEnMs),
  };
}

describe('the verified-credential cache', () => {
  const clock = { now: 1_000_000 };
  const basica = (password: string) => ({ basica: { usuario: 'ana', password } });

  test('serves nothing until its event stream is confirmed, then what was verified, at most its TTL', () => {
    const cache = createCredentialCache({ ttlMs: 60_000, maxEntries: 10, now: () => clock.now });
    const key = cache.keyOf(basica('secreta-123'));
    cache.put(key, autenticacion(clock.now + 120_000), cache.epoch);
    expect(cache.get(key)).toBeUndefined();
    expect(cache.resume(cache.epoch)).toBe(true);
    cache.put(key, autenticacion(clock.now + 120_000), cache.epoch);
    expect(cache.get(key)?.principal.usuario).toBe('ana');
    clock.now += 60_000;
    expect(cache.get(key)).toBeUndefined();
  });

  test('keys are keyed MACs: never the password, different per process, different per password', () => {
    const one = createCredentialCache({ ttlMs: 60_000, maxEntries: 10 });
    const two = createCredentialCache({ ttlMs: 60_000, maxEntries: 10 });
    const key = one.keyOf(basica('secreta-123'));
    expect(key).not.toContain('secreta-123');
    expect(key).toBe(one.keyOf(basica('secreta-123')));
    expect(two.keyOf(basica('secreta-123'))).not.toBe(key);
    expect(one.keyOf(basica('secreta-124'))).not.toBe(key);
    expect(one.keyOf({ bearer: 'ana\0secreta-123' })).not.toBe(key);
  });

  test('an entry never outlives its signed principal less the margin', () => {
    const cache = createCredentialCache({ ttlMs: 60_000, maxEntries: 10, now: () => clock.now });
    cache.resume(cache.epoch);
    const key = cache.keyOf(basica('p'));
    cache.put(key, autenticacion(clock.now + 20_000), cache.epoch);
    clock.now += 5_000;
    expect(cache.get(key)).toBeUndefined();
    cache.put(key, autenticacion(clock.now + 10_000), cache.epoch);
    expect(cache.get(key)).toBeUndefined();
  });

  test('an identity event empties it, and a verification that began before the event is not stored after it', () => {
    const cache = createCredentialCache({ ttlMs: 60_000, maxEntries: 10, now: () => clock.now });
    cache.resume(cache.epoch);
    const key = cache.keyOf(basica('p'));
    cache.put(key, autenticacion(clock.now + 120_000), cache.epoch);
    const epoch = cache.epoch;
    cache.invalidate();
    expect(cache.get(key)).toBeUndefined();
    cache.put(key, autenticacion(clock.now + 120_000), epoch);
    expect(cache.get(key)).toBeUndefined();
  });

  test('a doubt bypasses it until a new subscription resumes it; a resume older than the doubt is refused', () => {
    const cache = createCredentialCache({ ttlMs: 60_000, maxEntries: 10, now: () => clock.now });
    const before = cache.epoch;
    cache.bypass();
    expect(cache.resume(before)).toBe(false);
    expect(cache.bypassed).toBe(true);
    expect(cache.resume(cache.epoch)).toBe(true);
  });

  test('holds at most maxEntries, the oldest out first', () => {
    const cache = createCredentialCache({ ttlMs: 60_000, maxEntries: 2, now: () => clock.now });
    cache.resume(cache.epoch);
    const keys = ['a', 'b', 'c'].map((p) => cache.keyOf(basica(p)));
    for (const key of keys) cache.put(key, autenticacion(clock.now + 120_000), cache.epoch);
    expect(cache.size).toBe(2);
    expect(cache.get(keys[0]!)).toBeUndefined();
    expect(cache.get(keys[2]!)).toBeDefined();
  });
});
