/**
 * The one process spawner of the tests: a BUILT entry point
 * (`services/<name>/dist/main.js`, or any node script that speaks platform's
 * ready message) as a real child process, for tests that run, kill, stop and
 * restart it. A process is ready when its main sends the IPC ready message
 * (platform's readyMessage: after migrations for a gRPC service, so health
 * is SERVING then); the same IPC channel makes a service shut down if the
 * test process dies. Every process started here is remembered, so
 * `killAllServiceProcesses()` in an afterAll leaves nothing running even
 * when a test failed halfway.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { readyMessage } from '@inventario/platform';
// index.ts re-exports this module; waitFor is only called once a process runs, after both loaded.
import { waitFor } from './index';

export type ServiceName = 'producto-svc' | 'bodega-svc' | 'identidad-svc' | 'bff' | 'notifier';

/** One JSON log line of a service (pino). */
export interface LogLine {
  msg: string;
  level?: number;
  [field: string]: unknown;
}

/** How a process ended. */
export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface ServiceProcess {
  /** The service, or the label given to startProcess. */
  readonly name: string;
  readonly pid: number;
  /** The environment it was started with (start it again with the same one to restart on the same port). */
  readonly env: Readonly<Record<string, string>>;
  readonly child: ChildProcess;
  /** Its parsed JSON log lines so far. */
  readonly lines: LogLine[];
  /** Everything it wrote to stdout so far, as written (a command's report, a line that is not JSON). */
  stdout(): string;
  stderr(): string;
  /** Resolves once it ended and all of its output was read. */
  readonly exited: Promise<ProcessExit>;
  running(): boolean;
  /** Waits for a log line with `msg` (and `fields`); fails at once if the process exits first. */
  logged(msg: string, fields?: Record<string, unknown>, timeoutMs?: number): Promise<LogLine>;
  /** Sends `sig` (SIGTERM, SIGKILL, SIGSTOP, SIGCONT...). */
  signal(sig: NodeJS.Signals): void;
  /** SIGTERM, then SIGKILL after `graceMs` (default 30 s); resolves with how it ended. */
  stop(graceMs?: number): Promise<ProcessExit>;
  /** SIGKILL (after SIGCONT, in case it was stopped); resolves once it is gone. */
  kill(): Promise<ProcessExit>;
}

export interface StartProcessOptions {
  /** How long to wait for the ready message (default 60 s). */
  readyTimeoutMs?: number;
  /** Resolve as soon as it is spawned, without waiting for ready (default false). */
  noWait?: boolean;
  /**
   * Fault injection, passed to the service's main by test/fixtures/main-with-faults.js
   * (no environment variable sets it): producto-svc and bodega-svc take
   * `{ relayMarkDelayMs }`, the notifier `{ ackDelayMs }`.
   */
  faults?: Record<string, number>;
  /** Another built entry point of the service than `main.js` (e.g. `dlq-replay-main.js`), and its arguments. */
  main?: string;
  args?: string[];
}

/** The repository, from packages/testkit/dist. */
const ROOT = join(__dirname, '..', '..', '..');

/** The test-only entry that runs a service's main with fault injection options. */
const MAIN_WITH_FAULTS = join(ROOT, 'test', 'fixtures', 'main-with-faults.js');
const started = new Set<ServiceProcess>();

/** The compiled entry point of a service. */
export function serviceMain(name: ServiceName, main = 'main.js'): string {
  return join(ROOT, 'services', name, 'dist', main);
}

/**
 * Spawns the built service with exactly `env` (plus PATH; LOG_LEVEL
 * defaults to warn) and waits until it reports ready. Rejects with its last
 * log lines if it exits first or is not ready in time (it is killed then).
 */
export function startServiceProcess(
  name: ServiceName,
  env: Record<string, string>,
  options: StartProcessOptions = {},
): Promise<ServiceProcess> {
  const main = serviceMain(name, options.main);
  const entry = options.faults ? [MAIN_WITH_FAULTS, main, JSON.stringify(options.faults)] : [main];
  return startProcess(name, [...entry, ...(options.args ?? [])], env, options);
}

/**
 * Like startServiceProcess, for any node script (`entry`: its path and arguments) that sends platform's ready message.
 */
export async function startProcess(
  name: string,
  entry: string[],
  env: Record<string, string>,
  options: StartProcessOptions = {},
): Promise<ServiceProcess> {
  const fullEnv: Record<string, string> = { LOG_LEVEL: 'warn', ...env };
  const child = spawn(process.execPath, entry, {
    env: { PATH: process.env.PATH ?? '', ...fullEnv },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  const { lines, stdout, stderr } = capturedOutput(child);
  let ended = false;
  // 'close', not 'exit': only then has all of the child's output been read.
  const exited = new Promise<ProcessExit>((resolve) =>
    child.once('close', (code, signal) => {
      ended = true;
      resolve({ code, signal });
    }),
  );
  const ready = readyMessage(child);
  ready.catch(() => undefined);
  const describe = () => `${name} (pid ${child.pid}): ${JSON.stringify(lines.slice(-5))} ${stderr().slice(-2000)}`;

  const proc: ServiceProcess = {
    name,
    pid: child.pid ?? -1,
    env: fullEnv,
    child,
    lines,
    stdout,
    stderr,
    exited,
    running: () => !ended && child.exitCode === null && child.signalCode === null,
    async logged(msg, fields = {}, timeoutMs = 30_000) {
      const find = () => lines.find((l) => l.msg === msg && Object.entries(fields).every(([k, v]) => l[k] === v));
      return Promise.race([
        waitFor(find, `${name} to log "${msg}"`, timeoutMs),
        exited.then((how) => {
          const line = find();
          if (line) return line;
          throw new Error(`${name} exited (${how.code ?? how.signal}) before logging "${msg}": ${describe()}`);
        }),
      ]);
    },
    signal(sig) {
      if (proc.running()) child.kill(sig);
    },
    async stop(graceMs = 30_000) {
      proc.signal('SIGTERM');
      const timer = setTimeout(() => proc.signal('SIGKILL'), graceMs);
      try {
        return await exited;
      } finally {
        clearTimeout(timer);
      }
    },
    async kill() {
      proc.signal('SIGCONT');
      proc.signal('SIGKILL');
      return exited;
    },
  };
  started.add(proc);
  void exited.then(() => started.delete(proc));
  if (options.noWait) return proc;
  await untilReady(proc, ready, describe, options.readyTimeoutMs ?? 60_000);
  return proc;
}

/** The child's output as it comes: stdout and stderr whole, and stdout's JSON log lines (any other line as `msg`). */
function capturedOutput(child: ChildProcess): { lines: LogLine[]; stdout: () => string; stderr: () => string } {
  const lines: LogLine[] = [];
  let stdout = '';
  let stderr = '';
  let buffered = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    buffered += chunk.toString();
    const complete = buffered.split('\n');
    buffered = complete.pop() ?? '';
    for (const line of complete) {
      if (!line.trim()) continue;
      try {
        lines.push(JSON.parse(line) as LogLine);
      } catch {
        lines.push({ msg: line });
      }
    }
  });
  return { lines, stdout: () => stdout, stderr: () => stderr };
}

/** Waits for the ready message; a process that exits first or is not ready in `timeoutMs` is killed, and rejects. */
async function untilReady(
  proc: ServiceProcess,
  ready: Promise<void>,
  describe: () => string,
  timeoutMs: number,
): Promise<void> {
  const { name, exited } = proc;
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      // readyMessage rejects at 'exit'; the log lines are all read at 'close'.
      ready.catch(async () => {
        const how = await exited;
        throw new Error(`${name} exited (${how.code ?? how.signal}) before it was ready: ${describe()}`);
      }),
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`${name} was not ready within ${timeoutMs} ms: ${describe()}`)),
          timeoutMs,
        );
      }),
    ]);
  } catch (err) {
    await proc.kill();
    throw err;
  } finally {
    clearTimeout(timer);
  }
}

/** How a command (a process that does its work and exits) ended, and all it wrote. */
export interface CommandResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs a node script (`entry`: its path and arguments; a service's built command is `serviceMain(name, main)`) with
 * `env` as startProcess does, to its end: a migration Job, the seed, dlq:replay, provisioning.
 */
export async function runCommand(name: string, entry: string[], env: Record<string, string>): Promise<CommandResult> {
  const proc = await startProcess(name, entry, env, { noWait: true });
  const { code } = await proc.exited;
  return { code, stdout: proc.stdout(), stderr: proc.stderr() };
}

/** SIGKILLs every service process started here that still runs (for afterAll). */
export async function killAllServiceProcesses(): Promise<void> {
  await Promise.all([...started].map((p) => p.kill()));
}
