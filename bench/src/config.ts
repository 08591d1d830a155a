import { parseArgs } from 'node:util';
import { TARGET_KEYS } from './targets';

/**
 * The harness's command line (`npm run bench -- [flags]`) and the two
 * environment variables it reads, parsed once. README.md lists every flag.
 */
export interface BenchConfig {
  quick: boolean;
  rounds: number;
  /** Seconds of each measured window. */
  durationSeconds: number;
  /** Seconds of each target's discarded warm-up window. */
  warmupSeconds: number;
  connections: number;
  soakSeconds: number;
  eventSeconds: number;
  /** Paced writes per second for the event measurements. */
  eventRate: number;
  /** Paced writes per second during the soak (keeps the relay and the notifier working). */
  soakWriteRate: number;
  /** GETs per second through the cached BFF during the soak, over more products than its cache holds (issue 14). */
  soakCachedRate: number;
  relayEvents: number;
  /** Users created, then each logged in once (a cache miss: one argon2id verification), for logins/s (issue 26). */
  loginUsers: number;
  /** Keys of earlier requests in producto-svc's idempotency table before the keyed windows (0: an empty table). */
  idempotencyBacklog: number;
  productos: number;
  bodegas: number;
  profile: boolean;
  /** Target keys to measure (B_db always); all when absent. For profiling one path. */
  only?: string[];
  logLevel: string;
  /** Where the markdown goes; quick mode defaults under .tmp/, never RESULTS.md. */
  out: string;
  mysqlServer: string;
  natsUrl: string;
  target?: {
    bffUrl: string;
    user: string;
    password: string;
    productoDbUrl: string;
    /** bodega-svc's database: without it the harness cannot wait for bodega-svc's outbox after a stock window. */
    bodegaDbUrl?: string;
    stream: string;
    prefix: string;
    smtpPort?: number;
  };
  /** The command as typed, for the results. */
  command: string;
}

export class UsageError extends Error {}

function positive(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) <= 0) throw new UsageError(`--${name} must be a positive whole number`);
  return Number(value);
}

function nonNegative(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value)) throw new UsageError(`--${name} must be a whole number, 0 or more`);
  return Number(value);
}

/** The arguments without secrets: the password flag's value and URL credentials become `***`. */
function redacted(argv: string[]): string[] {
  return argv.map((arg, i) => {
    if (argv[i - 1] === '--password') return '***';
    if (arg.startsWith('--password=')) return '--password=***';
    return arg.replace(/\/\/([^/@\s]+)@/, '//***@');
  });
}

export function loadConfig(argv: string[], env: NodeJS.ProcessEnv, repoRoot: string): BenchConfig {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      quick: { type: 'boolean', default: false },
      rounds: { type: 'string' },
      duration: { type: 'string' },
      warmup: { type: 'string' },
      connections: { type: 'string' },
      'soak-seconds': { type: 'string' },
      'event-seconds': { type: 'string' },
      'event-rate': { type: 'string' },
      'soak-write-rate': { type: 'string' },
      'soak-cached-rate': { type: 'string' },
      'relay-events': { type: 'string' },
      'login-users': { type: 'string' },
      'idempotency-backlog': { type: 'string' },
      productos: { type: 'string' },
      bodegas: { type: 'string' },
      profile: { type: 'boolean', default: false },
      only: { type: 'string' },
      'log-level': { type: 'string', default: 'info' },
      out: { type: 'string' },
      target: { type: 'string' },
      user: { type: 'string' },
      password: { type: 'string' },
      'producto-db': { type: 'string' },
      'bodega-db': { type: 'string' },
      stream: { type: 'string', default: 'INVENTARIO' },
      prefix: { type: 'string', default: 'inventario' },
      'smtp-port': { type: 'string' },
    },
  });
  const quick = values.quick;
  const productos = positive('productos', values.productos, 1000);
  const bodegas = positive('bodegas', values.bodegas, 10);
  if (productos < 1000 || bodegas < 10)
    throw new UsageError('the issue asks for at least 1000 products and 10 warehouses');
  const rounds = positive('rounds', values.rounds, quick ? 2 : 5);
  if (rounds < 2) throw new UsageError('--rounds must be at least 2 (the median of one round is noise)');

  const only = values.only?.split(',').map((key) => key.trim());
  const unknown = only?.filter((key) => !(TARGET_KEYS as readonly string[]).includes(key));
  if (unknown && unknown.length > 0)
    throw new UsageError(`--only: unknown target ${unknown.join(', ')} (known: ${TARGET_KEYS.join(', ')})`);

  let target: BenchConfig['target'];
  if (values.target !== undefined) {
    const user = values.user ?? env.BFF_USER;
    const password = values.password ?? env.BFF_PASSWORD;
    const productoDbUrl = values['producto-db'];
    if (!user || !password || !productoDbUrl) {
      throw new UsageError(
        '--target needs --user and --password (or BFF_USER/BFF_PASSWORD) and --producto-db mysql://.../database',
      );
    }
    target = {
      bffUrl: values.target,
      user,
      password,
      productoDbUrl,
      ...(values['bodega-db'] === undefined ? {} : { bodegaDbUrl: values['bodega-db'] }),
      stream: values.stream,
      prefix: values.prefix,
      ...(values['smtp-port'] === undefined ? {} : { smtpPort: positive('smtp-port', values['smtp-port'], 0) }),
    };
  }
  return {
    quick,
    rounds,
    durationSeconds: positive('duration', values.duration, quick ? 2 : 5),
    warmupSeconds: positive('warmup', values.warmup, quick ? 1 : 5),
    connections: positive('connections', values.connections, 10),
    soakSeconds: positive('soak-seconds', values['soak-seconds'], quick ? 5 : 300),
    eventSeconds: positive('event-seconds', values['event-seconds'], quick ? 3 : 30),
    eventRate: positive('event-rate', values['event-rate'], 50),
    soakWriteRate: positive('soak-write-rate', values['soak-write-rate'], 5),
    soakCachedRate: positive('soak-cached-rate', values['soak-cached-rate'], 200),
    relayEvents: positive('relay-events', values['relay-events'], quick ? 500 : 5000),
    loginUsers: positive('login-users', values['login-users'], quick ? 20 : 200),
    idempotencyBacklog: nonNegative('idempotency-backlog', values['idempotency-backlog'], 10_000),
    productos,
    bodegas,
    profile: values.profile,
    ...(only ? { only } : {}),
    logLevel: values['log-level'],
    out: values.out ?? (quick ? `${repoRoot}/.tmp/bench/results-quick.md` : `${repoRoot}/bench/RESULTS.md`),
    mysqlServer: env.BENCH_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306',
    natsUrl: env.BENCH_NATS_URL ?? 'nats://127.0.0.1:4222',
    ...(target ? { target } : {}),
    command: ['npm run bench', ...(argv.length > 0 ? ['--', ...redacted(argv)] : [])].join(' '),
  };
}
