import { availableParallelism } from 'node:os';
import type { Stack } from './stack';

/** Issue 26: Basic logins that miss the BFF's verified-credential cache, each one argon2id verification. */
export interface LoginFigures {
  logins: number;
  seconds: number;
  perSecond: number;
  /**
   * perSecond over the machine's cores (identidad-svc verifies on as many threads as it has cores: KDF_CONCURRENCY).
   */
  perCore: number;
  cores: number;
  errors: number;
}

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

/**
 * `users` users are created (each one argon2id hash, not timed), then each logs in once through bff-identidad
 * (GET /api/yo, its first request, so a cache miss: one verification in identidad-svc), `concurrency` at a time; the
 * logins per second of that burst, and per core. The right password every time: the path a real login takes.
 */
export async function measureLogins(stack: Stack, users: number, concurrency: number): Promise<LoginFigures> {
  const identidad = stack.identidad;
  if (!identidad) throw new Error('measureLogins needs the harness own stack (bff-identidad)');
  const call = async (method: string, path: string, auth: string, body?: unknown) => {
    const res = await fetch(`${identidad.bffUrl}${path}`, {
      method,
      headers: { authorization: auth, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    await res.arrayBuffer();
    return res.status;
  };
  const credentials: string[] = [];
  for (let i = 0; i < users; i++) {
    const usuario = `bench.login.${Date.now().toString(36)}.${i}`;
    const password = `bench-login-password-${i}`;
    const status = await call('POST', '/api/usuarios', stack.auth, {
      usuario,
      password,
      asignaciones: [{ rol: 'LECTOR' }],
    });
    if (status !== 201) throw new Error(`creating ${usuario} answered ${status}`);
    credentials.push(basic(usuario, password));
  }
  let next = 0;
  let errors = 0;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < credentials.length) {
        const auth = credentials[next++]!;
        if ((await call('GET', '/api/yo', auth)) !== 200) errors += 1;
      }
    }),
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const cores = availableParallelism();
  const perSecond = (users - errors) / seconds;
  return { logins: users - errors, seconds, perSecond, perCore: perSecond / cores, cores, errors };
}
