import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readyMessage } from '@inventario/platform';
import { LOOP_READ, LOOP_RESET, LOOP_SAMPLE, type LoopSample } from './loop-protocol';

/** USER_HZ: the unit of /proc/<pid>/stat times, 100 on every Linux build we run on. */
const CLOCK_TICKS_PER_SECOND = 100;

/** One process of the benchmarked stack, started from its built entry point. */
export interface ChildSpec {
  name: string;
  /** Compiled entry point (dist/*.js). */
  entry: string;
  env: Record<string, string>;
}

export interface ChildOptions {
  /** stdout and stderr of each child go to `<logDir>/<name>.log`. */
  logDir: string;
  /** Preloaded into every child (the event-loop monitor). */
  preload: string;
  /** With a directory, each child writes `<name>.cpuprofile` there as it exits (`--cpu-prof`). */
  profileDir?: string;
  /** Inherited environment (PATH and the like); the child's own env overrides it. */
  baseEnv: NodeJS.ProcessEnv;
}

/** A started child: its pid, readiness, and the bench probes. */
export interface Child {
  name: string;
  pid: number;
  logFile: string;
  /** Resolves on the IPC ready message; rejects if the process exits first. */
  ready: Promise<void>;
  /** Starts a new event-loop delay window. */
  resetLoop(): void;
  /** The event-loop delay since the last resetLoop(); with `gc`, after a full GC (heap retained). */
  readLoop(gc?: boolean): Promise<LoopSample>;
  /** Resident set size now, in bytes (/proc/<pid>/status VmRSS). */
  rss(): number;
  /** CPU time used so far (user + system), in ms (/proc/<pid>/stat, 10 ms resolution). */
  cpuMs(): number;
  /** SIGTERM, SIGKILL after `graceMs`; resolves with the exit code (or signal). */
  stop(graceMs: number): Promise<string>;
}

/**
 * Starts a child with an IPC channel: the services report ready over it
 * (platform's announceStarted), the loop monitor answers over it, and if the
 * harness dies the channel closes and the child shuts itself down.
 */
export function startChild(spec: ChildSpec, options: ChildOptions): Child {
  const logFile = join(options.logDir, `${spec.name}.log`);
  const fd = openSync(logFile, 'a');
  const nodeOptions = [options.baseEnv.NODE_OPTIONS, `--require ${options.preload}`].filter(Boolean).join(' ');
  const profile = options.profileDir
    ? ['--cpu-prof', `--cpu-prof-dir=${options.profileDir}`, `--cpu-prof-name=${spec.name}.cpuprofile`]
    : [];
  // --expose-gc: the loop monitor collects before the soak's heap readings (nothing else calls gc()).
  const proc: ChildProcess = spawn(process.execPath, ['--expose-gc', ...profile, spec.entry], {
    // MALLOC_ARENA_MAX=2 as the service images set it (fewer glibc malloc arenas, flatter RSS; bench/RESULTS.md).
    env: { MALLOC_ARENA_MAX: '2', ...options.baseEnv, ...spec.env, NODE_OPTIONS: nodeOptions },
    stdio: ['ignore', fd, fd, 'ipc'],
  });
  closeSync(fd);
  const exited = new Promise<string>((resolve) => {
    proc.once('exit', (code, signal) => resolve(signal ?? `exit ${code}`));
    proc.once('error', (err) => resolve(`could not start: ${err.message}`));
  });
  const ready = readyMessage(proc).catch((err: Error) => {
    throw new Error(`${spec.name} ${err.message}; see ${logFile}`);
  });
  ready.catch(() => undefined);

  return {
    name: spec.name,
    pid: proc.pid ?? -1,
    logFile,
    ready,
    resetLoop() {
      if (proc.connected) proc.send({ type: LOOP_RESET });
    },
    readLoop(gc = false) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          proc.off('message', onMessage);
          reject(new Error(`${spec.name} did not report its event-loop delay`));
        }, 5000);
        const onMessage = (message: LoopSample | null) => {
          if (message?.type !== LOOP_SAMPLE) return;
          clearTimeout(timer);
          proc.off('message', onMessage);
          resolve(message);
        };
        proc.on('message', onMessage);
        proc.send({ type: LOOP_READ, gc });
      });
    },
    rss() {
      const status = readFileSync(`/proc/${proc.pid}/status`, 'utf8');
      const kb = /^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1];
      return kb === undefined ? Number.NaN : Number(kb) * 1024;
    },
    cpuMs() {
      // Fields after the command name (which may hold spaces) start at the state, field 3.
      const stat = readFileSync(`/proc/${proc.pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SECOND;
    },
    async stop(graceMs) {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
      const timer = setTimeout(() => proc.kill('SIGKILL'), graceMs);
      const how = await exited;
      clearTimeout(timer);
      return how;
    },
  };
}
