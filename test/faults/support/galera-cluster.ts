/**
 * A private MariaDB Galera cluster on loopback for fault tests: `size`
 * mariadbd processes with galera-4 (`libgalera_smm.so`), each with its own
 * port, socket, data dir and wsrep ports, root without password. The first
 * node bootstraps the cluster (`--wsrep-new-cluster`), the others join it
 * by rsync SST. A node can be SIGKILLed and started again (it rejoins by
 * IST or SST). mariadbd runs as `mysql` with its directories owned by
 * `mysql` when this process is root: rsync SST fails as root.
 */
import { execFile } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { findProgram } from '@inventario/local-servers';
import { freePort, startPrivateServer, type PrivateServer } from '@inventario/testkit';

const MARIADBD = findProgram('mariadbd', process.env) ?? 'mariadbd';
const INSTALL_DB = findProgram('mariadb-install-db', process.env) ?? 'mariadb-install-db';
const GALERA = process.env.GALERA_PROVIDER ?? '/usr/lib/galera/libgalera_smm.so';
const asRoot = process.getuid?.() === 0;

export interface GaleraNode {
  readonly name: string;
  /** `127.0.0.1:<port>`, as a DATABASE_URL names it. */
  readonly host: string;
  /** `mysql://root@127.0.0.1:<port>` (append `/<database>`). */
  readonly url: string;
  running(): boolean;
  /** SIGKILL: no clean shutdown. */
  kill(): Promise<void>;
  /** Starts it again; it rejoins the cluster (never bootstraps a new one). */
  restart(): Promise<void>;
}

export interface GaleraCluster {
  nodes: readonly GaleraNode[];
  /** Every node as `host:port`, comma-separated, in node order: DATABASE_URL's host list. */
  hosts: string;
  dispose(): Promise<void>;
}

/** `mysql` owns what mariadbd writes when we are root. */
function giveToMysql(path: string): void {
  if (!asRoot) return;
  const { uid, gid } = mysqlIds;
  chownSync(path, uid, gid);
}

const mysqlIds = (() => {
  try {
    // uid/gid of `mysql`, read once (the Debian package creates the user).
    const passwd = readFileSync('/etc/passwd', 'utf8');
    const line = passwd.split('\n').find((l) => l.startsWith('mysql:'));
    const [, , uid, gid] = (line ?? '').split(':');
    return { uid: Number(uid), gid: Number(gid) };
  } catch {
    return { uid: -1, gid: -1 };
  }
})();

export async function startGaleraCluster(size = 3): Promise<GaleraCluster> {
  const base = mkdtempSync(join(tmpdir(), 'inventario-galera-'));
  chmodSync(base, 0o755);
  const ports = await Promise.all(
    Array.from({ length: size }, async () => ({
      sql: await freePort(),
      gcomm: await freePort(),
      ist: await freePort(),
      sst: await freePort(),
    })),
  );
  const clusterAddress = `gcomm://${ports.map((p) => `127.0.0.1:${p.gcomm}`).join(',')}`;
  const current: (PrivateServer | undefined)[] = [];
  const up: boolean[] = [];

  const dirOf = (i: number) => join(base, `g${i + 1}`);
  const start = async (i: number, bootstrap: boolean) => {
    const p = ports[i]!;
    const dir = dirOf(i);
    const server = await startPrivateServer({
      name: `galera node g${i + 1} on ${p.sql}`,
      command: MARIADBD,
      args: [
        '--no-defaults',
        `--datadir=${join(dir, 'data')}`,
        `--port=${p.sql}`,
        '--bind-address=127.0.0.1',
        `--socket=${join(dir, 'mysqld.sock')}`,
        `--pid-file=${join(dir, 'mysqld.pid')}`,
        ...(asRoot ? ['--user=mysql'] : []),
        '--skip-name-resolve',
        '--innodb-buffer-pool-size=64M',
        '--binlog-format=ROW',
        '--innodb-autoinc-lock-mode=2',
        '--wsrep-on=ON',
        `--wsrep-provider=${GALERA}`,
        '--wsrep-cluster-name=inventario-faults',
        `--wsrep-cluster-address=${clusterAddress}`,
        `--wsrep-node-name=g${i + 1}`,
        `--wsrep-node-address=127.0.0.1:${p.gcomm}`,
        `--wsrep-provider-options=gmcast.listen_addr=tcp://127.0.0.1:${p.gcomm};ist.recv_addr=127.0.0.1:${p.ist}`,
        `--wsrep-sst-receive-address=127.0.0.1:${p.sst}`,
        '--wsrep-sst-method=rsync',
        ...(bootstrap ? ['--wsrep-new-cluster'] : []),
      ],
      readyText: 'ready for connections',
      startTimeoutMs: 120_000,
      stopGraceMs: 30_000,
      dir,
      pidFile: join(dir, 'mysqld.pid'),
      // The data outlives a kill: dispose() of the cluster deletes it all.
      removeDir: false,
    });
    current[i] = server;
    up[i] = true;
  };

  const dispose = async () => {
    for (const server of current) await server?.dispose();
    rmSync(base, { recursive: true, force: true });
  };

  try {
    for (let i = 0; i < size; i++) {
      const dir = dirOf(i);
      mkdirSync(dir);
      giveToMysql(dir);
      await promisify(execFile)(INSTALL_DB, [
        '--no-defaults',
        `--datadir=${join(dir, 'data')}`,
        '--auth-root-authentication-method=normal',
        '--skip-test-db',
        ...(asRoot ? ['--user=mysql'] : []),
      ]);
    }
    await start(0, true);
    // Joiners one at a time: each takes a full state transfer from a donor.
    for (let i = 1; i < size; i++) await start(i, false);
  } catch (err) {
    await dispose();
    throw err;
  }

  const nodes = ports.map<GaleraNode>((p, i) => ({
    name: `g${i + 1}`,
    host: `127.0.0.1:${p.sql}`,
    url: `mysql://root@127.0.0.1:${p.sql}`,
    running: () => up[i] === true,
    async kill() {
      const server = current[i];
      server?.signal('SIGKILL');
      await server?.stop();
      up[i] = false;
    },
    async restart() {
      if (up[i]) throw new Error(`g${i + 1} still runs`);
      await current[i]?.dispose();
      await start(i, false);
    },
  }));
  return { nodes, hosts: nodes.map((n) => n.host).join(','), dispose };
}
