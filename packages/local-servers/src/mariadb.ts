import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startPrivateServer, type PrivateServer } from './private-server';

export interface MariaDbOptions {
  /** The mariadbd and mariadb-install-db programs (see findProgram). */
  mariadbd: string;
  installDb: string;
  /** Listens on 127.0.0.1:port; root has no password. */
  port: number;
  /** The server's directory: data in `<dir>/data`, socket and pid file beside it. */
  dir: string;
  /** As startPrivateServer's: false keeps the data when the server is disposed of. */
  removeDir?: boolean;
}

/** mariadbd wants `--user` only when it runs as root (it then refuses any other unless told). */
const asRoot = process.getuid?.() === 0 ? ['--user=root'] : [];

/**
 * A mariadbd on 127.0.0.1:`port` with its own data directory, initialised
 * by mariadb-install-db on first use (root without password); later starts
 * reuse the data. A failed initialisation leaves no half-made data behind,
 * so the next start tries again. Never reads the machine's my.cnf
 * (--no-defaults): nothing of the machine's own server is shared.
 */
export async function startMariaDb(options: MariaDbOptions): Promise<PrivateServer> {
  const datadir = join(options.dir, 'data');
  const pidFile = join(options.dir, 'mysqld.pid');
  mkdirSync(options.dir, { recursive: true });
  if (!existsSync(join(datadir, 'mysql'))) {
    try {
      await promisify(execFile)(options.installDb, [
        '--no-defaults',
        `--datadir=${datadir}`,
        '--auth-root-authentication-method=normal',
        '--skip-test-db',
        ...asRoot,
      ]);
    } catch (err) {
      rmSync(datadir, { recursive: true, force: true });
      throw err;
    }
  }
  return startPrivateServer({
    name: `mariadbd on ${options.port}`,
    command: options.mariadbd,
    args: [
      '--no-defaults',
      `--datadir=${datadir}`,
      `--port=${options.port}`,
      '--bind-address=127.0.0.1',
      `--socket=${join(options.dir, 'mysqld.sock')}`,
      `--pid-file=${pidFile}`,
      ...asRoot,
      '--skip-name-resolve',
      '--skip-log-bin',
      '--innodb-buffer-pool-size=128M', // as the machine's shared server: the fault suite's write load runs on it
    ],
    readyText: 'ready for connections',
    startTimeoutMs: 60_000,
    stopGraceMs: 30_000,
    dir: options.dir,
    pidFile,
    removeDir: options.removeDir,
  });
}
