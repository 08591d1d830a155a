import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { join } from 'node:path';
import { waitFor } from '@inventario/testkit';

/** The built notifier (`dist/main.js`), as a container runs it. */
const MAIN = join(__dirname, '..', '..', 'dist', 'main.js');
/** The test-only entry that runs a service's main with fault injection options. */
const MAIN_WITH_FAULTS = join(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'main-with-faults.js');

export interface LogLine {
  msg: string;
  [field: string]: unknown;
}

export interface NotifierProcess {
  child: ChildProcessWithoutNullStreams;
  /** Parsed JSON log lines so far. */
  lines: LogLine[];
  stderr(): string;
  /** Exit code once the process ended and its output was read. */
  exited: Promise<number | null>;
  /** Waits for a log line with `msg` (and `fields`); fails at once if the process exits first. */
  logged(msg: string, fields?: Record<string, unknown>): Promise<void>;
}

/**
 * Runs the built notifier with exactly `env`; `faults` (`{ ackDelayMs }`)
 * go to its main through test/fixtures/main-with-faults.js, as no
 * environment variable sets them.
 */
export function runNotifier(env: Record<string, string>, faults?: { ackDelayMs: number }): NotifierProcess {
  const entry = faults ? [MAIN_WITH_FAULTS, MAIN, JSON.stringify(faults)] : [MAIN];
  const child = spawn(process.execPath, entry, { env: { PATH: process.env.PATH, ...env } });
  const lines: LogLine[] = [];
  let stderr = '';
  let buffered = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    const complete = buffered.split('\n');
    buffered = complete.pop() ?? '';
    for (const line of complete) if (line.trim()) lines.push(JSON.parse(line) as LogLine);
  });
  // 'close', not 'exit': only then has all of the child's output been read.
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  const matches = (msg: string, fields: Record<string, unknown>) => () =>
    lines.some((l) => l.msg === msg && Object.entries(fields).every(([k, v]) => l[k] === v));
  return {
    child,
    lines,
    stderr: () => stderr,
    exited,
    async logged(msg, fields = {}) {
      const seen = matches(msg, fields);
      await Promise.race([
        waitFor(seen, `the log line "${msg}"`, 30_000),
        exited.then((code) => {
          if (!seen()) throw new Error(`exited (${code}) before logging "${msg}": ${JSON.stringify(lines.slice(-5))} ${stderr}`);
        }),
      ]);
    },
  };
}
