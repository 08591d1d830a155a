import { randomBytes } from 'node:crypto';
import { hash, verify } from '@node-rs/argon2';
import { UnavailableError } from '@inventario/platform';
import { Counter, Gauge, type Registry } from 'prom-client';

/**
 * argon2id password hashing (docs/decisions.md, "Passwords"), bounded: at
 * most `concurrency` computations run (each takes ~19 MiB and a libuv
 * thread for tens of milliseconds), at most `queue` wait, and the rest are
 * refused at once with UNAVAILABLE (reason KDF_SATURADO), which the gateway
 * answers 503 with Retry-After. A flood of logins then costs a bounded
 * amount of CPU and memory instead of every request's latency.
 */

export interface Argon2Params {
  memoryKib: number;
  timeCost: number;
  parallelism: number;
}

export interface PasswordHasher {
  /** A PHC string (`$argon2id$v=19$m=…,t=…,p=…$salt$hash`) at the current parameters. */
  hash(password: string): Promise<string>;
  /**
   * Whether `password` matches `phc`; `phc` undefined (no such user, or
   * no password) is checked against a dummy hash, so the answer costs the
   * same time either way. `rehash` when a match was stored with other
   * parameters than today's: the caller stores a new hash.
   */
  verify(phc: string | undefined, password: string): Promise<{ ok: boolean; rehash: boolean }>;
}

export class KdfSaturadoError extends UnavailableError {
  override readonly reason = 'KDF_SATURADO';
  constructor() {
    super('demasiadas verificaciones de contraseña en curso; reintente en unos instantes');
    this.name = 'KdfSaturadoError';
  }
}

/** @node-rs/argon2's Algorithm.Argon2id (a const enum, which isolatedModules cannot import). */
const ARGON2ID = 2;

export interface PasswordHasherOptions {
  params: Argon2Params;
  concurrency: number;
  queue: number;
  registry: Registry;
}

/** The parameters of a PHC string, or undefined when it is not argon2id's. */
export function parametrosDe(phc: string): Argon2Params | undefined {
  const match = /^\$argon2id\$v=19\$m=(\d+),t=(\d+),p=(\d+)\$/.exec(phc);
  return match ? { memoryKib: Number(match[1]), timeCost: Number(match[2]), parallelism: Number(match[3]) } : undefined;
}

export async function createPasswordHasher(options: PasswordHasherOptions): Promise<PasswordHasher> {
  const { params } = options;
  const argon = {
    algorithm: ARGON2ID,
    memoryCost: params.memoryKib,
    timeCost: params.timeCost,
    parallelism: params.parallelism,
  };
  const verificaciones = new Counter({
    name: 'identidad_kdf_operaciones_total',
    help: 'argon2id computations run (hash or verification), by kind.',
    labelNames: ['tipo'],
    registers: [options.registry],
  });
  const rechazos = new Counter({
    name: 'identidad_kdf_rechazos_total',
    help: 'Password checks refused at once because the hashing queue was full (KDF_SATURADO).',
    registers: [options.registry],
  });
  const enCola = new Gauge({
    name: 'identidad_kdf_en_cola',
    help: 'Password hashings waiting for a slot.',
    registers: [options.registry],
  });

  let running = 0;
  const waiting: (() => void)[] = [];
  async function bounded<T>(tipo: 'hash' | 'verify', work: () => Promise<T>): Promise<T> {
    if (running >= options.concurrency) {
      if (waiting.length >= options.queue) {
        rechazos.inc();
        throw new KdfSaturadoError();
      }
      const turn = new Promise<void>((resolve) => waiting.push(resolve));
      enCola.set(waiting.length);
      await turn;
    } else running++;
    verificaciones.inc({ tipo });
    try {
      return await work();
    } finally {
      // The slot passes straight to the next waiter, so `running` never over-counts.
      const next = waiting.shift();
      enCola.set(waiting.length);
      if (next) next();
      else running--;
    }
  }

  // Made once per process at today's parameters: unknown users cost one verification like everyone.
  const dummy = await hash(randomBytes(24).toString('base64'), argon);
  const vigentes = (phc: string) => {
    const p = parametrosDe(phc);
    return (
      p !== undefined &&
      p.memoryKib === params.memoryKib &&
      p.timeCost === params.timeCost &&
      p.parallelism === params.parallelism
    );
  };

  return {
    hash: (password) => bounded('hash', () => hash(password, argon)),
    async verify(phc, password) {
      const ok = await bounded('verify', async () => {
        try {
          return await verify(phc ?? dummy, password);
        } catch {
          // A stored value that is no PHC string verifies nothing.
          return false;
        }
      });
      return { ok: ok && phc !== undefined, rehash: ok && phc !== undefined && !vigentes(phc) };
    },
  };
}
