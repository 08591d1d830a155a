import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { prettyFactory } from 'pino-pretty';
import type { ServiceSpec } from './services';

export type Say = (line: string) => void;

export interface Supervisor {
  start(spec: ServiceSpec): void;
  /** SIGTERM to every child, then waits for all to exit (SIGKILL after `graceMs`). */
  stopAll(graceMs: number): Promise<void>;
}

export interface SupervisorOptions {
  say: Say;
  format: 'pretty' | 'json';
  /** The launcher's own environment, inherited by every child. */
  baseEnv: NodeJS.ProcessEnv;
  /** Called when a child exits while the launcher is not stopping. */
  onUnexpectedExit(name: string, code: number | null, signal: NodeJS.Signals | null): void;
}

/** Runs the services as child processes and prefixes their log lines with their name. */
export function createSupervisor(options: SupervisorOptions): Supervisor {
  const children = new Map<string, ChildProcess>();
  const pretty = prettyFactory({ colorize: false, translateTime: 'SYS:HH:MM:ss', ignore: 'pid,hostname,service' });
  let stopping = false;

  function pipe(name: string, stream: NodeJS.ReadableStream, parseJson: boolean): void {
    createInterface({ input: stream }).on('line', (line) => {
      const text = parseJson && options.format === 'pretty' && line.startsWith('{') ? pretty(line).trimEnd() : line;
      options.say(`[${name}] ${text}`);
    });
  }

  return {
    start(spec) {
      const child = spawn(process.execPath, [spec.entry], {
        env: { ...options.baseEnv, ...spec.env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      children.set(spec.name, child);
      if (child.stdout) pipe(spec.name, child.stdout, true);
      if (child.stderr) pipe(spec.name, child.stderr, false);
      child.once('exit', (code, signal) => {
        children.delete(spec.name);
        if (!stopping) options.onUnexpectedExit(spec.name, code, signal);
      });
    },
    async stopAll(graceMs) {
      stopping = true;
      await Promise.all(
        [...children.values()].map(
          (child) =>
            new Promise<void>((resolve) => {
              if (child.exitCode !== null || child.signalCode !== null) return resolve();
              const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
              child.once('exit', () => {
                clearTimeout(timer);
                resolve();
              });
              child.kill('SIGTERM');
            }),
        ),
      );
    },
  };
}
