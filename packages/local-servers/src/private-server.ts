/**
 * A server process this process owns (a test's nats-server or mariadbd,
 * npm start's private instances): started with its own directory, ready
 * when its log says so, stopped and started again on the same port and
 * directory, and never left behind: a failed start kills it, and a
 * detached watchdog shell stops it if the owner dies without dispose()
 * (jest killed, a crash, the launcher killed). A test's scratch directory
 * is deleted by dispose() and by the watchdog; kept data (`removeDir:
 * false`) never is. The server runs in its own process group, so a
 * terminal's Ctrl-C reaches only its owner, which stops it in order.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';

export interface PrivateServerOptions {
  /** For messages: `nats-server`, `mariadbd`. */
  name: string;
  command: string;
  args: readonly string[];
  /** Text on stderr that says the server accepts connections. */
  readyText: string;
  startTimeoutMs: number;
  /** After SIGTERM, how long stop() waits before SIGKILL. */
  stopGraceMs: number;
  /** The server's own directory (data, store, socket); its path must appear in the server's command line. */
  dir: string;
  /**
   * Whether dispose() and the watchdog delete `dir` (default true: a test's scratch directory; false: data kept across
   * runs).
   */
  removeDir?: boolean;
  /** Where the server writes its pid (inside `dir`), so the watchdog can find it. */
  pidFile: string;
  /** Environment variables added to the server's (e.g. passwords its configuration file reads). */
  env?: Record<string, string>;
}

export interface PrivateServer {
  /** (Re)starts the server; resolves once it logged `readyText`. A failed start leaves nothing running. */
  start(): Promise<void>;
  /** SIGTERM (a clean shutdown), SIGKILL after `stopGraceMs`. */
  stop(): Promise<void>;
  /** Sends `sig` to the running server (SIGSTOP: it keeps its connections and answers nothing; SIGCONT). */
  signal(sig: NodeJS.Signals): void;
  /** Stops the server and deletes its directory (unless `removeDir: false`). */
  dispose(): Promise<void>;
}

/** SIGKILL (after SIGCONT, in case it was stopped); resolves once it is gone (at once if it never ran). */
async function killAndWait(proc: ChildProcess): Promise<void> {
  if (proc.pid === undefined || proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  proc.kill('SIGCONT');
  proc.kill('SIGKILL');
  await exited;
}

/**
 * A detached shell that outlives this process: while this process lives and
 * `dir` exists it sleeps; if this process is gone first, it stops the server
 * whose pid is in `pidFile` (only if that pid's command line names `dir`):
 * SIGTERM, a clean shutdown that keeps data intact, SIGKILL after
 * `graceSeconds`; then deletes `dir` when `remove`. kill() ends it once
 * dispose() cleaned up.
 */
function startWatchdog(dir: string, pidFile: string, remove: boolean, graceSeconds: number): { kill(): void } {
  const script = [
    'while kill -0 "$0" 2>/dev/null && [ -d "$1" ]; do sleep 1; done',
    '[ -d "$1" ] || exit 0',
    'pid=$(cat "$2" 2>/dev/null)',
    'if [ -n "$pid" ] && grep -qaF -- "$1" "/proc/$pid/cmdline" 2>/dev/null; then',
    '  kill -CONT "$pid"; kill -TERM "$pid"',
    '  i=0; while [ "$i" -lt "$4" ] && kill -0 "$pid" 2>/dev/null; do sleep 1; i=$((i + 1)); done',
    '  kill -KILL "$pid" 2>/dev/null; sleep 1',
    'fi',
    '[ "$3" = remove ] && rm -rf "$1"',
    'exit 0',
  ].join('\n');
  const args = [String(process.pid), dir, pidFile, remove ? 'remove' : 'keep', String(graceSeconds)];
  const proc = spawn('sh', ['-c', script, ...args], { detached: true, stdio: 'ignore' });
  proc.on('error', () => undefined);
  proc.unref();
  return {
    kill() {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
    },
  };
}

/** Resolves once the server's stderr shows `readyText`; rejects at its exit, an error or `startTimeoutMs`. */
function untilReady(proc: ChildProcess, options: PrivateServerOptions): Promise<void> {
  let output = '';
  return new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () =>
        reject(new Error(`${options.name} did not start within ${options.startTimeoutMs} ms: ${output.slice(-2000)}`)),
      options.startTimeoutMs,
    );
    proc.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes(options.readyText)) {
        clearTimeout(timer);
        resolve();
      }
    });
    proc.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${options.name} exited with ${code}: ${output.slice(-2000)}`));
    });
    proc.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
  });
}

/** Starts the server; if the first start fails, its directory is gone too. */
export async function startPrivateServer(options: PrivateServerOptions): Promise<PrivateServer> {
  const removeDirectory = options.removeDir !== false;
  const watchdog = startWatchdog(options.dir, options.pidFile, removeDirectory, Math.ceil(options.stopGraceMs / 1000));
  let child: ChildProcess | undefined;

  async function start(): Promise<void> {
    if (child) return;
    const proc = spawn(options.command, [...options.args], {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, ...options.env },
      detached: true,
    });
    child = proc;
    try {
      await untilReady(proc, options);
    } catch (err) {
      // Not ready in time (or it failed): make sure it is gone before anyone deletes its directory.
      child = undefined;
      await killAndWait(proc);
      throw err;
    }
    // Its log keeps coming; read it so the pipe never fills.
    proc.stderr?.resume();
  }

  async function stop(): Promise<void> {
    const proc = child;
    if (!proc) return;
    child = undefined;
    if (proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
    proc.kill('SIGCONT');
    proc.kill('SIGTERM');
    const timer = setTimeout(() => proc.kill('SIGKILL'), options.stopGraceMs);
    await exited;
    clearTimeout(timer);
  }

  const removeDir = () => {
    if (removeDirectory) rmSync(options.dir, { recursive: true, force: true });
    watchdog.kill();
  };
  try {
    await start();
  } catch (err) {
    removeDir();
    throw err;
  }
  return {
    start,
    stop,
    signal(sig) {
      child?.kill(sig);
    },
    async dispose() {
      await stop();
      removeDir();
    },
  };
}
