/**
 * A private `mariadbd` for fault tests that stop MySQL: its own port, socket
 * and data dir (made by `mariadb-install-db` in a temporary directory), root
 * without password on 127.0.0.1. The machine's shared MariaDB is never
 * touched. stop() and start() keep the port and data dir, so a service that
 * was pointed at it sees the same server come back.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '@inventario/testkit';

export interface PrivateMariaDb {
  /** Server part of the MySQL URL, e.g. `mysql://root@127.0.0.1:34567` (append `/<database>`). */
  url: string;
  port: number;
  /** (Re)starts the server on the same port and data dir; resolves when it accepts connections. */
  start(): Promise<void>;
  /** Stops the server (SIGTERM, a clean shutdown; SIGKILL after 30 s). */
  stop(): Promise<void>;
  /** Sends `sig` to the running server (SIGSTOP: it keeps its connections and answers nothing; SIGCONT). */
  signal(sig: NodeJS.Signals): void;
  /** Stops the server and deletes its directory. */
  dispose(): Promise<void>;
}

const MARIADBD = process.env.MARIADBD_BIN ?? (existsSync('/usr/sbin/mariadbd') ? '/usr/sbin/mariadbd' : 'mariadbd');
const INSTALL_DB = process.env.MARIADB_INSTALL_DB_BIN ?? 'mariadb-install-db';

export async function startPrivateMariaDb(): Promise<PrivateMariaDb> {
  const dir = mkdtempSync(join(tmpdir(), 'inventario-mariadb-'));
  const datadir = join(dir, 'data');
  const port = await freePort();
  try {
    await promisify(execFile)(INSTALL_DB, [
      '--no-defaults',
      `--datadir=${datadir}`,
      '--auth-root-authentication-method=normal',
      '--skip-test-db',
      '--user=root',
    ]);
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  let child: ChildProcess | undefined;

  async function start(): Promise<void> {
    if (child) return;
    const proc = spawn(
      MARIADBD,
      [
        '--no-defaults',
        `--datadir=${datadir}`,
        `--port=${port}`,
        '--bind-address=127.0.0.1',
        `--socket=${join(dir, 'mysqld.sock')}`,
        `--pid-file=${join(dir, 'mysqld.pid')}`,
        '--user=root',
        '--skip-name-resolve',
        '--skip-log-bin',
        '--innodb-buffer-pool-size=32M',
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    child = proc;
    let output = '';
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`mariadbd did not start on ${port}: ${output.slice(-2000)}`)), 60_000);
      proc.stderr?.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('ready for connections')) {
          clearTimeout(timer);
          resolve();
        }
      });
      proc.once('exit', (code) => {
        clearTimeout(timer);
        child = undefined;
        reject(new Error(`mariadbd exited with ${code}: ${output.slice(-2000)}`));
      });
      proc.once('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
    });
    // Its log keeps coming; read it so the pipe never fills.
    proc.stderr?.resume();
  }

  async function stop(): Promise<void> {
    const proc = child;
    if (!proc) return;
    child = undefined;
    if (proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
    proc.kill('SIGTERM');
    const timer = setTimeout(() => proc.kill('SIGKILL'), 30_000);
    await exited;
    clearTimeout(timer);
  }

  try {
    await start();
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  return {
    url: `mysql://root@127.0.0.1:${port}`,
    port,
    start,
    stop,
    signal(sig) {
      child?.kill(sig);
    },
    async dispose() {
      child?.kill('SIGCONT');
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
