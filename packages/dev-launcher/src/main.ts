/**
 * `npm start`: runs every Inventario service on this machine.
 * Checks MariaDB and NATS first (naming the variable and the command that
 * fixes a missing one), creates missing databases (each service migrates its
 * own at start), starts the services, waits until each reports SERVING over
 * grpc.health.v1, prints where each listens, and stops them all on Ctrl-C.
 */
import { ConfigError } from '@inventario/platform';
import { loadConfig } from './config';
import { waitUntilServing } from './health-probe';
import { checkNats, PreflightError, prepareDatabase } from './preflight';
import { serviceSpecs } from './services';
import { createSupervisor } from './supervisor';

const STOP_GRACE_MS = 30_000;

const say = (line: string): void => {
  process.stdout.write(`${line}\n`);
};
const fail = (message: string): never => {
  process.stderr.write(`npm start: ${message}\n`);
  process.exit(1);
};

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig(process.env);
  } catch (err) {
    if (err instanceof ConfigError) fail(err.message);
    throw err;
  }

  try {
    await checkNats(config.NATS_URL);
    await prepareDatabase('PRODUCTO_DATABASE_URL', config.PRODUCTO_DATABASE_URL);
    await prepareDatabase('BODEGA_DATABASE_URL', config.BODEGA_DATABASE_URL);
  } catch (err) {
    if (err instanceof PreflightError) fail(err.message);
    throw err;
  }

  const specs = serviceSpecs(config);
  const startup = new AbortController();
  let stopping = false;
  const supervisor = createSupervisor({
    say,
    format: config.LAUNCHER_LOG_FORMAT,
    baseEnv: process.env,
    onUnexpectedExit(name, code, signal) {
      startup.abort();
      say(`${name} exited unexpectedly (${signal ?? `code ${code}`}); stopping the others.`);
      void supervisor.stopAll(STOP_GRACE_MS).then(() => process.exit(1));
    },
  });

  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    startup.abort();
    say('Stopping all services...');
    void supervisor.stopAll(STOP_GRACE_MS).then(() => {
      say('All services stopped.');
      process.exit(0);
    });
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);

  for (const spec of specs) supervisor.start(spec);
  await Promise.all(specs.map((spec) => waitUntilServing(spec.grpcAddress, startup.signal)));

  say('');
  say('Inventario is up:');
  for (const spec of specs) say(`  ${spec.name.padEnd(14)} ${spec.summary}`);
  say(`  events         NATS ${config.NATS_URL}, stream ${config.NATS_STREAM}, subjects ${config.NATS_SUBJECT_PREFIX}.>`);
  say('Press Ctrl-C to stop everything.');
  say('');
}

main().catch((err: unknown) => {
  if (err instanceof Error && err.message.startsWith('gave up waiting')) return; // stopping already
  fail(err instanceof Error ? err.message : String(err));
});
