/**
 * A private `mariadbd` for fault tests that stop MySQL: its own port, socket
 * and data dir (made by `mariadb-install-db` in a temporary directory), root
 * without password on 127.0.0.1 (local-servers' startMariaDb, as npm
 * start's private MariaDB). The machine's shared MariaDB is never
 * touched. stop() and start() keep the port and data dir, so a service
 * that was pointed at it sees the same server come back. Like every private
 * server (local-servers' startPrivateServer), it is never left
 * behind, not even when jest is killed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findProgram, startMariaDb } from '@inventario/local-servers';
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

export async function startPrivateMariaDb(): Promise<PrivateMariaDb> {
  const dir = mkdtempSync(join(tmpdir(), 'inventario-mariadb-'));
  const port = await freePort();
  const server = await startMariaDb({
    // The bare names fail to spawn, naming the program, when it is not installed.
    mariadbd: findProgram('mariadbd', process.env) ?? 'mariadbd',
    installDb: findProgram('mariadb-install-db', process.env) ?? 'mariadb-install-db',
    port,
    dir,
  }).catch((err: unknown) => {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  });
  return { url: `mysql://root@127.0.0.1:${port}`, port, ...server };
}
