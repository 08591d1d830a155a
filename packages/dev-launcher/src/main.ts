/**
 * `npm start`: runs every Inventario service on this machine.
 * Checks MariaDB, NATS (with JetStream) and the ports first, naming the
 * variable and the fix for every problem found, creates missing databases
 * (each service migrates its own at start), starts the services, waits until
 * each reports SERVING over grpc.health.v1, prints where each listens, and
 * stops them all on Ctrl-C (a second Ctrl-C kills them at once).
 */
import { ConfigError } from '@inventario/platform';
import { loadConfig } from './config';
import { waitUntilServing } from './health-probe';
import { checkNats, checkPortFree, prepareDatabase, type Problem } from './preflight';
import { serviceSpecs } from './services';
import { createSupervisor, type Outcome } from './supervisor';

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

/** A clean stop is every service exiting 0 by itself. */
function describe(outcomes: Outcome[]): { clean: boolean; text: string } {
  const unclean = outcomes.filter((o) => o.code !== 0);
  if (unclean.length === 0) return { clean: true, text: 'All services stopped.' };
  return { clean: false, text: `Stopped, but not cleanly: ${unclean.map((o) => `${o.name} ${o.signal ? `killed by ${o.signal}` : `exit ${o.code}`}`).join(', ')}.` };
}

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig(process.env);
  } catch (err) {
    if (err instanceof ConfigError) fail(err.message);
    throw err;
  }
  const specs = serviceSpecs(config);

  // Every check runs, so one start reports every problem.
  const problems = (
    await Promise.all<Problem | undefined>([
      checkNats(config.NATS_URL),
      prepareDatabase('PRODUCTO_DATABASE_URL', config.PRODUCTO_DATABASE_URL),
      prepareDatabase('BODEGA_DATABASE_URL', config.BODEGA_DATABASE_URL),
      ...specs.map((s) => checkPortFree(s.grpcPortVariable, '127.0.0.1', s.grpcPort)),
    ])
  ).filter((p): p is Problem => p !== undefined);
  if (problems.length > 0) fail(`cannot start:\n${problems.map((p) => `  - ${p.variable}: ${p.message}`).join('\n')}`);

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
      void supervisor.stopAll(STOP_GRACE_MS).then(() => process.exit(1));
    },
  });

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
    void supervisor.stopAll(STOP_GRACE_MS).then((outcomes) => {
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

  for (const spec of specs) supervisor.start(spec);
  const deadline = AbortSignal.any([startup.signal, AbortSignal.timeout(START_TIMEOUT_MS)]);
  try {
    await Promise.all(specs.map((spec) => waitUntilServing(spec.grpcAddress, deadline)));
  } catch (err) {
    if (stopping) return;
    say(`The services did not report SERVING within ${START_TIMEOUT_MS / 1000} s (see their logs above); stopping.`);
    stopping = true;
    void supervisor.stopAll(STOP_GRACE_MS).then(() => process.exit(1));
    void err;
    return;
  }

  say('');
  say('Inventario is up:');
  for (const spec of specs) say(`  ${spec.name.padEnd(14)} ${spec.summary}`);
  say(`  events         NATS ${config.NATS_URL}, stream ${config.NATS_STREAM}, subjects ${config.NATS_SUBJECT_PREFIX}.>`);
  say('Press Ctrl-C to stop everything.');
  say('');
}

main().catch((err: unknown) => fail(err instanceof Error ? err.message : String(err)));
