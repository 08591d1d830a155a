/**
 * `npm start`: runs every Inventario service on this machine.
 * Checks MariaDB, NATS (with JetStream) and the ports first, naming the
 * variable and the fix for every problem found; runs a private MariaDB or
 * NATS where nothing answers but the program is installed (else prints the
 * command that installs it); creates missing databases (each service
 * migrates its own at start), starts the services, waits until each is
 * ready (SERVING over grpc.health.v1, or its IPC ready message), prints
 * where each listens (and the dev credentials and inbox), and stops them
 * all on Ctrl-C (a second Ctrl-C kills them at once), the private servers
 * last.
 */
import { mkdirSync } from 'node:fs';
import type { PrivateServer } from '@inventario/local-servers';
import { ConfigError, redactUrlCredentials, removeLauncherRecord, writeLauncherRecord } from '@inventario/platform';
import { loadConfig, type LauncherConfig } from './config';
import { waitUntilServing } from './health-probe';
import { detectPackageManager, installCommand } from './install-command';
import { checkNats, checkPortFree, mailDevRunning, prepareDatabase, type Problem } from './preflight';
import { planPrivateInstances, type InstancePlan, type PrivateInstance } from './private-instances';
import {
  DEV_CREDENTIALS,
  inboxUrlOf,
  metricsSummaryOf,
  provisionPrivateNats,
  seedCommandOf,
  serviceSpecs,
  type ServiceSpec,
} from './services';
import { createSupervisor, type Outcome, type Supervisor } from './supervisor';

const STOP_GRACE_MS = 30_000;
const START_TIMEOUT_MS = 120_000;

/** Set once our output is gone (`npm start | head`, a closed terminal): writing again would only fail again. */
let outputClosed = false;
const say = (line: string): void => {
  if (!outputClosed) process.stdout.write(`${line}\n`);
};
const fail = (message: string): never => {
  process.stderr.write(`npm start: ${message}\n`);
  process.exit(1);
};

/**
 * A clean stop is every service exiting 0 by itself, or ending by our
 * SIGTERM while it was still booting (before it could install a handler).
 */
function describe(outcomes: Outcome[]): { clean: boolean; text: string } {
  const unclean = outcomes.filter((o) => o.code !== 0 && !(o.signal === 'SIGTERM' && !o.ready));
  if (unclean.length === 0) return { clean: true, text: 'All services stopped.' };
  return {
    clean: false,
    text: `Stopped, but not cleanly: ${unclean
      .map((o) => `${o.name} ${o.signal ? `killed ` + `by ${o.signal}` : `exit ${o.code}`}`)
      .join(', ')}.`,
  };
}

/** What to do when a private server's program is missing: the command that installs it here, or the alternatives. */
function installAdvice(programs: Parameters<typeof installCommand>[1]): string[] {
  const command = installCommand(detectPackageManager(process.env), programs, process.getuid?.() === 0);
  return [
    command
      ? `Install ${programs.length > 1 ? 'them' : 'it'} with:\n    ${command}\nand run npm start again: it then ` +
        `runs private instances itself.`
      : `Install ${[...new Set(programs)].join(', ')} with your package manager and run npm start again: it then ` +
        `runs private instances itself.`,
    'Or, with Docker: docker compose up -d (compose.yaml), then npm start.',
  ];
}

// The start and stop sequence in the order it runs: the `stopping` flag and the stop functions are shared by
// the signal handlers, an unexpected exit and the start-up timeout, so they stay in this one scope.
async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig(process.env);
  } catch (err) {
    if (err instanceof ConfigError) fail(err.message);
    throw err;
  }
  // A MailDev already on the catcher's ports (compose.yaml's) is used as it is.
  const mailDevReused =
    config.SMTP_URL === undefined &&
    (await mailDevRunning(config.MAIL_CATCHER_SMTP_PORT, config.MAIL_CATCHER_WEB_PORT));
  const plan = await planPrivateInstances(config, process.env);
  const specs = serviceSpecs(config, plan.natsPasswords).filter((s) => !(mailDevReused && s.name === 'mail-catcher'));

  await checkEverything({ config, plan, specs });
  const { privateServers, stopPrivateServers } = await startPrivateServers(config, plan);

  const startup = new AbortController();
  let stopping = false;
  const supervisor = createSupervisor({
    say,
    format: config.LAUNCHER_LOG_FORMAT,
    baseEnv: process.env,
    onUnexpectedExit(outcome) {
      if (stopping) return;
      stopping = true;
      startup.abort();
      say(`${outcome.name} exited unexpectedly (${outcome.signal ?? `code ${outcome.code}`}); stopping the others.`);
      void stopEverything().then(() => process.exit(1));
    },
  });

  /** The services, then the private servers (which the services drain into and close their pools on). */
  const stopEverything = async () => {
    // From here on this system no longer takes sample data (npm run seed reads the record).
    removeLauncherRecord(config.LAUNCHER_DATA_DIR, process.pid);
    const outcomes = await supervisor.stopAll(STOP_GRACE_MS);
    if (privateServers.length > 0) {
      await stopPrivateServers();
      say(
        `Private ${privateServers.map(({ instance }) => instance.what).join(' and ')} stopped; their data stays ` +
          `in ${config.LAUNCHER_DATA_DIR}.`,
      );
    }
    return outcomes;
  };

  /** Graceful stop of everything; a second request by signal escalates to SIGKILL. */
  const stop = (escalate: boolean): void => {
    if (stopping) {
      if (!escalate) return;
      say('Stopping now: killing the services.');
      supervisor.killAll();
      return;
    }
    stopping = true;
    startup.abort();
    say('Stopping all services (Ctrl-C again to kill them)...');
    void stopEverything().then((outcomes) => {
      const { clean, text } = describe(outcomes);
      say(text);
      process.exit(clean ? 0 : 1);
    });
  };
  process.on('SIGINT', () => stop(true));
  process.on('SIGTERM', () => stop(true));
  // The terminal went away: stop gracefully, never escalate (its writes fail too).
  process.on('SIGHUP', () => {
    outputClosed = true;
    stop(false);
  });
  // Our output closed (e.g. `npm start | head`): stop the services gracefully rather than crash.
  process.stdout.on('error', () => {
    outputClosed = true;
    stop(false);
  });

  const deadline = AbortSignal.any([startup.signal, AbortSignal.timeout(START_TIMEOUT_MS)]);
  try {
    // The mail catcher and the gRPC services first: the BFF calls the services
    // and the notifier sends to the catcher as soon as they start.
    const late = new Set(['bff', 'notifier']);
    await startAndWait(
      { supervisor, deadline },
      specs.filter((s) => !late.has(s.name)),
    );
    await startAndWait(
      { supervisor, deadline },
      specs.filter((s) => late.has(s.name)),
    );
  } catch {
    if (stopping) return;
    say(`The services did not report ready within ${START_TIMEOUT_MS / 1000} s (see their logs above); stopping.`);
    stopping = true;
    void stopEverything().then(() => process.exit(1));
    return;
  }

  printSummary({ config, specs, privateServers, mailDevReused });
}

/** Starts these specs and waits until each is ready (aborted by a stop or the start-up timeout). */
function startAndWait(
  { supervisor, deadline }: { supervisor: Supervisor; deadline: AbortSignal },
  group: ServiceSpec[],
) {
  return Promise.all(
    group.map((spec) => {
      const { ready } = supervisor.start(spec);
      if (spec.readiness.kind === 'grpc') return waitUntilServing(spec.readiness.address, deadline);
      return new Promise<void>((resolve, reject) => {
        const onAbort = () => reject(new Error(`gave up waiting for ${spec.name}`));
        deadline.addEventListener('abort', onAbort, { once: true });
        void ready.then(() => {
          deadline.removeEventListener('abort', onAbort);
          resolve();
        });
      });
    }),
  );
}

/** Every check runs, so one start reports every problem; exits naming each when there is any. */
async function checkEverything({
  config,
  plan,
  specs,
}: {
  config: LauncherConfig;
  plan: InstancePlan;
  specs: ServiceSpec[];
}) {
  const databases = (['PRODUCTO_DATABASE_URL', 'BODEGA_DATABASE_URL', 'IDENTIDAD_DATABASE_URL'] as const).filter(
    (v) => !plan.silent.has(v),
  );
  const problems = [
    ...plan.problems,
    ...(
      await Promise.all<Problem | undefined>([
        plan.silent.has('NATS_URL') ? undefined : checkNats(config.NATS_URL),
        ...databases.map((variable) => prepareDatabase(variable, config[variable])),
        ...specs.flatMap((s) => s.ports.map((p) => checkPortFree(p.variable, '127.0.0.1', p.port))),
      ])
    ).filter((p): p is Problem => p !== undefined),
  ];
  if (problems.length > 0) {
    const lines = problems.map((p) => `  - ${p.variable}: ${p.message}`);
    if (plan.missingPrograms.length > 0) lines.push(...installAdvice(plan.missingPrograms));
    fail(`cannot start:\n${lines.join('\n')}`);
  }
}

/**
 * The private servers: started before anything else, stopped after everything else. Exits when one does not
 * start, its databases cannot be prepared or its streams provisioned, stopping those already started.
 */
async function startPrivateServers(config: LauncherConfig, plan: InstancePlan) {
  const privateServers: { instance: PrivateInstance; server: PrivateServer }[] = [];
  const stopPrivateServers = () =>
    Promise.all(privateServers.map(({ server }) => server.dispose().catch(() => undefined)));
  for (const instance of plan.instances) {
    say(
      `${instance.what}: nothing answers on 127.0.0.1:${instance.port}; starting a private ${instance.program} ` +
        `there (data in ${instance.dir})...`,
    );
    try {
      privateServers.push({ instance, server: await instance.start() });
    } catch (err) {
      await stopPrivateServers();
      fail(`the private ${instance.program} did not start: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  const databaseProblems = (
    await Promise.all(
      plan.privateDatabases.map((variable) => prepareDatabase(variable, config[variable as 'PRODUCTO_DATABASE_URL'])),
    )
  ).filter((p): p is Problem => p !== undefined);
  if (databaseProblems.length > 0) {
    await stopPrivateServers();
    fail(`cannot start:\n${databaseProblems.map((p) => `  - ${p.variable}: ${p.message}`).join('\n')}`);
  }
  // The private NATS has the chart's users: as in the chart, only `provisioner` creates the streams.
  if (plan.natsPasswords) {
    try {
      const nats = { passwords: plan.natsPasswords, sentBucket: plan.natsSentBucket ?? 'notifier-sent' };
      const provisioned = await provisionPrivateNats(config, nats, process.env.PATH ?? '');
      say(`NATS: streams provisioned as user provisioner: ${provisioned}`);
    } catch (err) {
      await stopPrivateServers();
      fail(`the private NATS's streams could not be provisioned: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  return { privateServers, stopPrivateServers };
}

/** What runs where, how to call it and how to seed it; and the record npm run seed follows. */
function printSummary({
  config,
  specs,
  privateServers,
  mailDevReused,
}: {
  config: LauncherConfig;
  specs: ServiceSpec[];
  privateServers: { instance: PrivateInstance }[];
  mailDevReused: boolean;
}) {
  say('');
  say('Inventario is up:');
  for (const { instance } of privateServers) {
    say(
      `  ${instance.what.toLowerCase().padEnd(14)} private ${instance.program} on 127.0.0.1:${instance.port}, data ` +
        `in ${instance.dir} (run by npm start, stopped with it)`,
    );
    if (instance.what === 'NATS') {
      say(
        `  ${'nats users'.padEnd(14)} the chart's (each service as its own); passwords ` +
          `in ${instance.dir}/passwords.json (npm run dlq:replay as dlq-replay)`,
      );
    }
  }
  if (mailDevReused) {
    say(
      `  ${'mail-catcher'.padEnd(14)} inbox http://127.0.0.1:${config.MAIL_CATCHER_WEB_PORT}/ (the MailDev already ` +
        `running there, used as it is; SMTP 127.0.0.1:${config.MAIL_CATCHER_SMTP_PORT})`,
    );
  }
  for (const spec of specs) say(`  ${spec.name.padEnd(14)} ${spec.summary}`);
  say(
    `  events         NATS ${redactUrlCredentials(config.NATS_URL)}, stream ${config.NATS_STREAM}, ` +
      `subjects ${config.NATS_SUBJECT_PREFIX}.>`,
  );
  say(`  metrics        ${metricsSummaryOf(specs)}`);
  if (config.BFF_USER === undefined || config.BFF_PASSWORD === undefined) {
    say(
      `  credentials    ${config.BFF_USER ?? DEV_CREDENTIALS.user} ` +
        `/ ${config.BFF_PASSWORD === undefined ? DEV_CREDENTIALS.password : '(your BFF_PASSWORD)'}` +
        ' (development defaults: set BFF_USER and BFF_PASSWORD to choose your own)',
    );
  }
  const inbox = inboxUrlOf(config);
  if (inbox)
    say(`  emails         ${inbox} (every notification lands in this local inbox; set SMTP_URL to send for real)`);
  const password = config.BFF_PASSWORD === undefined ? DEV_CREDENTIALS.password : '"$BFF_PASSWORD"';
  const userPass = `${config.BFF_USER ?? DEV_CREDENTIALS.user}:${password}`;
  say(`  try            curl -u ${userPass} http://127.0.0.1:${config.PORT}/api/productos`);
  // npm run seed follows this record to the system just started, whatever its ports; the command printed names them
  // too.
  mkdirSync(config.LAUNCHER_DATA_DIR, { recursive: true });
  writeLauncherRecord(config.LAUNCHER_DATA_DIR, {
    pid: process.pid,
    productoSvcAddr: `127.0.0.1:${config.PRODUCTO_GRPC_PORT}`,
    bodegaSvcAddr: `127.0.0.1:${config.BODEGA_GRPC_PORT}`,
    api: `http://127.0.0.1:${config.PORT}/api`,
  });
  say(`  sample data    ${seedCommandOf(config)} (or the GraphQL mutation inicializarBaseDatos)`);
  say('Press Ctrl-C to stop everything.');
  say('');
}

main().catch((err: unknown) => fail(err instanceof Error ? err.message : String(err)));
