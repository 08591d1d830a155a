/**
 * The password hasher: argon2id at OWASP's parameters in PHC strings, a
 * re-hash flag for older parameters, and a bounded queue that refuses at
 * once (KDF_SATURADO) instead of letting logins pile up.
 */
import { hash } from '@node-rs/argon2';
import { Registry } from 'prom-client';
import { createPasswordHasher, KdfSaturadoError, parametrosDe } from '../src/autenticacion/password-hasher';
import { ARGON2_MINIMO } from '../src/config';

const params = { ...ARGON2_MINIMO };

describe('the password hasher', () => {
  it('hashes with argon2id m=19 MiB, t=2, p=1 into a PHC string, and verifies it', async () => {
    const hasher = await createPasswordHasher({ params, concurrency: 2, queue: 10, registry: new Registry() });
    const phc = await hasher.hash('una clave cualquiera');
    expect(parametrosDe(phc)).toEqual({ memoryKib: 19_456, timeCost: 2, parallelism: 1 });
    expect(await hasher.verify(phc, 'una clave cualquiera')).toEqual({ ok: true, rehash: false });
    expect(await hasher.verify(phc, 'otra')).toEqual({ ok: false, rehash: false });
  });

  it('asks for a re-hash of a match stored with other parameters, and never matches without a stored hash', async () => {
    const hasher = await createPasswordHasher({ params, concurrency: 2, queue: 10, registry: new Registry() });
    const old = await hash('clave', { algorithm: 2, memoryCost: 4096, timeCost: 1, parallelism: 1 });
    expect(await hasher.verify(old, 'clave')).toEqual({ ok: true, rehash: true });
    expect(await hasher.verify(undefined, 'clave')).toEqual({ ok: false, rehash: false });
    expect(await hasher.verify('no es un PHC', 'clave')).toEqual({ ok: false, rehash: false });
  });

  it('runs at most `concurrency` computations, queues `queue` more and refuses the rest at once, counting each', async () => {
    const registry = new Registry();
    const hasher = await createPasswordHasher({ params, concurrency: 1, queue: 2, registry });
    const phc = await hasher.hash('clave');
    const outcomes = await Promise.all(
      Array.from({ length: 8 }, () =>
        hasher.verify(phc, 'clave').then(
          () => 'ok',
          (err: unknown) => (err instanceof KdfSaturadoError ? err.reason : 'other'),
        ),
      ),
    );
    expect(outcomes.filter((o) => o === 'ok')).toHaveLength(3);
    expect(outcomes.filter((o) => o === 'KDF_SATURADO')).toHaveLength(5);
    const metrics = await registry.getMetricsAsJSON();
    const value = (name: string, label?: string) =>
      metrics.find((m) => m.name === name)!.values.find((v) => label === undefined || v.labels.tipo === label)!.value;
    expect(value('identidad_kdf_operaciones_total', 'verify')).toBe(3);
    expect(value('identidad_kdf_rechazos_total')).toBe(5);
  });
});
