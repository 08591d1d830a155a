/**
 * A private `mariadbd` for fault tests that stop MySQL: its own port, socket
 * and data dir (made by `mariadb-install-db` in a temporary directory), root
 * without password on 127.0.0.1. The machine's shared MariaDB is never
 * touched. stop() and start() keep the port and data dir, so a service that
 * was pointed at it sees the same server come back. Like every private
 * server of the tests (testkit's startPrivateServer), it is never left
 * behind, not even when jest is killed.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort, startPrivateServer } from '@inventario/testkit';

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
  const pidFile = join(dir, 'mysqld.pid');
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
  const server = await startPrivateServer({
    name: `mariadbd on ${port}`,
    command: MARIADBD,
    args: [
      '--no-defaults',
      `--datadir=${datadir}`,
      `--port=${port}`,
      '--bind-address=127.0.0.1',
      `--socket=${join(dir, 'mysqld.sock')}`,
      `--pid-file=${pidFile}`,
      '--user=root',
      '--skip-name-resolve',
      '--skip-log-bin',
      '--innodb-buffer-pool-size=128M', // as the machine's shared server: the suite's write load runs on it
    ],
    readyText: 'ready for connections',
    startTimeoutMs: 60_000,
    stopGraceMs: 30_000,
    dir,
    pidFile,
  });
  return { url: `mysql://root@127.0.0.1:${port}`, port, ...server };
}
