import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { prettyFactory } from 'pino-pretty';
import { readyMessage } from '@inventario/platform';
import type { ServiceSpec } from './services';

export type Say = (line: string) => void;

/**
 * How a service ended: its exit code, or the signal that ended it, and
 * whether it had reported ready (a SIGTERM during its boot, before it could
 * install its own handlers, ends it by the signal with nothing to clean up).
 */
export type Outcome = { name: string; code: number | null; signal: NodeJS.Signals | null; ready: boolean };

export interface Supervisor {
  /** Starts a child; `ready` resolves when it sends the IPC ready message (if it ever does). */
  start(spec: ServiceSpec): { ready: Promise<void> };
  /**
   * SIGTERM to every child (each runs its graceful shutdown), SIGKILL after
   * `graceMs`; resolves with how each ended. Calling it again returns the
   * same promise.
   */
  stopAll(graceMs: number): Promise<Outcome[]>;
  /** SIGKILL to every child still running (a second Ctrl-C). */
  killAll(): void;
}

export interface SupervisorOptions {
  say: Say;
  format: 'pretty' | 'json';
  /** The launcher's own environment, inherited by every child. */
  baseEnv: NodeJS.ProcessEnv;
  /** Called when a child ends (or fails to start) while the launcher is not stopping. */
  onUnexpectedExit(outcome: Outcome): void;
}

/**
 * Runs the services as child processes, prefixing their log lines with their
 * name. Each child gets an IPC channel: if the launcher dies, even by
 * SIGKILL, the channel closes and the service shuts itself down. Children
 * run in their own process group, so a terminal's Ctrl-C reaches only the
 * launcher, which then stops them in order.
 */
export function createSupervisor(options: SupervisorOptions): Supervisor {
  const children = new Map<string, { child: ChildProcess; ended: Promise<Outcome> }>();
  const pretty = prettyFactory({ colorize: false, translateTime: 'SYS:HH:MM:ss', ignore: 'pid,hostname,service' });
  let stopping: Promise<Outcome[]> | undefined;

  function pipe(name: string, stream: NodeJS.ReadableStream, parseJson: boolean): void {
    createInterface({ input: stream }).on('line', (line) => {
      const text = parseJson && options.format === 'pretty' && line.startsWith('{') ? pretty(line).trimEnd() : line;
      options.say(`[${name}] ${text}`);
    });
  }

  return {
    start(spec) {
      // Once stopping, nothing new starts: stopAll would not know about it.
      if (stopping) return { ready: new Promise<void>(() => undefined) };
      const child = spawn(process.execPath, [spec.entry, ...(spec.args ?? [])], {
        env: { ...options.baseEnv, ...spec.env },
        stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
        detached: true,
      });
      let isReady = false;
      const ended = new Promise<Outcome>((resolve) => {
        child.once('error', (err) => {
          options.say(`[${spec.name}] could not start: ${err.message}`);
          resolve({ name: spec.name, code: null, signal: null, ready: isReady });
        });
        child.once('exit', (code, signal) => resolve({ name: spec.name, code, signal, ready: isReady }));
      });
      children.set(spec.name, { child, ended });
      if (child.stdout) pipe(spec.name, child.stdout, true);
      if (child.stderr) pipe(spec.name, child.stderr, false);
      void ended.then((outcome) => {
        if (!stopping) options.onUnexpectedExit(outcome);
      });
      // A child that ends first is never ready: onUnexpectedExit reports it.
      const ready = readyMessage(child).then(
        () => {
          isReady = true;
        },
        () => new Promise<void>(() => undefined),
      );
      return { ready };
    },
    stopAll(graceMs) {
      stopping ??= Promise.all(
        [...children.values()].map(({ child, ended }) => {
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
          const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
          return ended.finally(() => clearTimeout(timer));
        }),
      );
      return stopping;
    },
    killAll() {
      for (const { child } of children.values())
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}
