/**
 * npm start's private MariaDB and NATS (docs/contract.md §8.6). When nothing
 * answers where PRODUCTO_DATABASE_URL / BODEGA_DATABASE_URL or NATS_URL
 * point, and they point at this machine without credentials (the
 * defaults), the launcher runs its own mariadbd / nats-server there, with
 * data under LAUNCHER_DATA_DIR kept across runs, and stops it with the
 * services. The private NATS runs with the chart's users and rights, so
 * what a service may not do in production it may not do here either. A
 * server that answers is always used as it is; one that should be private
 * but whose program is not installed is a problem naming it.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  findProgram,
  natsPasswordVariables,
  natsServerAuthorization,
  startMariaDb,
  startNatsServer,
  type PrivateServer,
  type ProgramName,
} from '@inventario/local-servers';
import { parseMysqlUrl } from '@inventario/platform';
import type { LauncherConfig } from './config';
import { answers, type Problem } from './preflight';

/** One server the launcher will run itself. */
export interface PrivateInstance {
  /** For messages: `MariaDB`, `NATS`. */
  what: string;
  /** `mariadbd`, `nats-server -js`. */
  program: string;
  port: number;
  /** Its data, kept across runs. */
  dir: string;
  start(): Promise<PrivateServer>;
}

/** What the launcher found: servers to run itself, the URLs left to check as before, and what is missing. */
export interface InstancePlan {
  instances: PrivateInstance[];
  /**
   * The variables (NATS_URL, the database URLs) whose server nothing answers for: a private instance, or a problem
   * below.
   */
  silent: Set<string>;
  /** The database variables whose server is a private instance (their databases are created once it runs). */
  privateDatabases: string[];
  problems: Problem[];
  /** Programs a private instance needs but this machine lacks. */
  missingPrograms: ProgramName[];
  /**
   * With a private NATS: the password of each of the chart's NATS users
   * (producto-svc, bodega-svc, notifier, bff, provisioner, dlq-replay), which
   * that server requires as the chart's does.
   */
  natsPasswords?: NatsPasswords;
  /**
   * With a private NATS: the notifier's KV bucket its authorization names (NOTIFIER_SENT_BUCKET, passed on to the
   * notifier).
   */
  natsSentBucket?: string;
}

/** Each NATS user's password, by user name. */
export type NatsPasswords = Record<string, string>;

/**
 * The development passwords of the NATS users, made once per data directory
 * (`<dir>/passwords.json`, readable by its owner only) and kept with the
 * server's data; never defaults written anywhere. Each starts with a letter:
 * nats-server reads an environment value that starts with a digit as a
 * number and refuses its configuration.
 */
function natsPasswordsIn(dir: string): NatsPasswords {
  const file = join(dir, 'passwords.json');
  const kept = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as NatsPasswords) : {};
  const passwords = Object.fromEntries(
    Object.keys(natsPasswordVariables()).map((user) => [user, kept[user] ?? `p${randomBytes(18).toString('hex')}`]),
  );
  mkdirSync(dir, { recursive: true });
  writeFileSync(file, `${JSON.stringify(passwords, null, 2)}\n`, { mode: 0o600 });
  return passwords;
}

/**
 * The private NATS's configuration: the chart's authorization, rendered
 * from the same source as values.yaml (local-servers' nats-authorization.ts)
 * for this stream and prefix, each password read from the server's
 * environment; and JetStream in `dir`.
 */
function privateNatsConfig(config: LauncherConfig, sentBucket: string, dir: string): string {
  const authorization = natsServerAuthorization({
    stream: config.NATS_STREAM,
    prefix: config.NATS_SUBJECT_PREFIX,
    sentBucket,
  });
  return `${authorization}jetstream { store_dir: ${JSON.stringify(dir)} }\n`;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

/** The single loopback server, without credentials, that NATS_URL names; undefined for anything else. */
function privateNatsTarget(natsUrl: string): { host: string; port: number } | undefined {
  const servers = natsUrl.split(',');
  if (servers.length !== 1) return undefined;
  const u = new URL(servers[0]!.trim());
  if (u.protocol !== 'nats:' || u.username !== '' || !LOOPBACK.has(u.hostname)) return undefined;
  return { host: u.hostname, port: u.port ? Number(u.port) : 4222 };
}

/** Decides, for NATS and MariaDB, whether the launcher runs a private instance. */
export async function planPrivateInstances(config: LauncherConfig, env: NodeJS.ProcessEnv): Promise<InstancePlan> {
  const plan: InstancePlan = {
    instances: [],
    silent: new Set(),
    privateDatabases: [],
    problems: [],
    missingPrograms: [],
  };
  await planPrivateNats(plan, config, env);
  await planPrivateMariaDb(plan, config, env);
  return plan;
}

const missingPrograms = (programs: ProgramName[], env: NodeJS.ProcessEnv) =>
  programs.filter((p) => findProgram(p, env) === undefined);

/** A private nats-server where NATS_URL names one loopback server and nothing answers there. */
async function planPrivateNats(plan: InstancePlan, config: LauncherConfig, env: NodeJS.ProcessEnv): Promise<void> {
  const nats = privateNatsTarget(config.NATS_URL);
  if (nats && !(await answers(nats.host, nats.port))) {
    plan.silent.add('NATS_URL');
    const lacking = missingPrograms(['nats-server'], env);
    if (lacking.length > 0) {
      plan.missingPrograms.push(...lacking);
      plan.problems.push({
        variable: 'NATS_URL',
        message:
          `nothing answers at ${config.NATS_URL}, and nats-server, to run a private NATS ` + `there, is not installed`,
      });
    } else {
      const dir = join(config.LAUNCHER_DATA_DIR, 'nats');
      const passwords = natsPasswordsIn(dir);
      // The notifier reads NOTIFIER_SENT_BUCKET from the environment it inherits; the rights must name that bucket.
      const sentBucket = env.NOTIFIER_SENT_BUCKET || 'notifier-sent';
      plan.natsPasswords = passwords;
      plan.natsSentBucket = sentBucket;
      plan.instances.push({
        what: 'NATS',
        program: 'nats-server -js',
        port: nats.port,
        dir,
        start: () => {
          const configFile = join(dir, 'nats-server.conf');
          writeFileSync(configFile, privateNatsConfig(config, sentBucket, dir), { mode: 0o600 });
          const passwordEnv = Object.fromEntries(
            Object.entries(natsPasswordVariables()).map(([user, variable]) => [variable, passwords[user] ?? '']),
          );
          return startNatsServer({
            command: findProgram('nats-server', env)!,
            port: nats.port,
            dir,
            configFile,
            env: passwordEnv,
            removeDir: false,
          });
        },
      });
    }
  }
}

/** One private mariadbd for the loopback root databases nothing answers for. */
async function planPrivateMariaDb(plan: InstancePlan, config: LauncherConfig, env: NodeJS.ProcessEnv): Promise<void> {
  // Both databases may live on one server: one private mariadbd serves them.
  const databases = (['PRODUCTO_DATABASE_URL', 'BODEGA_DATABASE_URL', 'IDENTIDAD_DATABASE_URL'] as const).map(
    (variable) => ({
      variable,
      target: parseMysqlUrl(config[variable]),
    }),
  );
  const eligible = databases.filter(
    ({ target }) => LOOPBACK.has(target.host) && target.user === 'root' && target.password === '',
  );
  const silent: typeof eligible = [];
  for (const db of eligible) if (!(await answers(db.target.host, db.target.port))) silent.push(db);
  if (silent.length === 0) return;
  for (const db of silent) plan.silent.add(db.variable);
  const lacking = missingPrograms(['mariadbd', 'mariadb-install-db'], env);
  const ports = [...new Set(silent.map((db) => db.target.port))];
  if (lacking.length > 0) {
    plan.missingPrograms.push(...lacking);
    for (const { variable, target } of silent) {
      plan.problems.push({
        variable,
        message:
          `nothing answers at ${target.host}:${target.port}, and ${lacking.join(' / ')}, to run a private ` +
          `MariaDB there, ${lacking.length > 1 ? 'are' : 'is'} not installed`,
      });
    }
  } else if (ports.length > 1) {
    plan.problems.push({
      variable: silent[1]!.variable,
      message:
        `the private MariaDB serves one port: point both database URLs at the same one ` +
        `(now ${ports.join(' and ')})`,
    });
  } else {
    const dir = join(config.LAUNCHER_DATA_DIR, 'mariadb');
    const port = ports[0]!;
    plan.privateDatabases.push(...silent.map((db) => db.variable));
    plan.instances.push({
      what: 'MariaDB',
      program: 'mariadbd',
      port,
      dir,
      start: () =>
        startMariaDb({
          mariadbd: findProgram('mariadbd', env)!,
          installDb: findProgram('mariadb-install-db', env)!,
          port,
          dir,
          removeDir: false,
        }),
    });
  }
}
