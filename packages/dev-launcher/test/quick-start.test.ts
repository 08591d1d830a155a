import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { waitFor } from '@inventario/testkit';

/**
 * The README's Quick start on a machine whose MariaDB and NATS are installed
 * but stopped: `npm start` with its default configuration (MariaDB on
 * 127.0.0.1:3306, NATS on 127.0.0.1:4222, the BFF on 8080) finds nothing
 * there, runs a private mariadbd and nats-server on those very ports, serves
 * the API with the dev credentials, and Ctrl-C stops everything
 * (docs/contract.md §8.6).
 *
 * This machine's own servers hold 3306 and 4222, so the launcher runs in a
 * network namespace of its own (`unshare -rn`: a new user and network
 * namespace, with a loopback where nothing listens). Where that is not
 * permitted but every default port is free on the machine, it runs there;
 * where neither, the test is skipped, saying why.
 */
const DRIVER = path.join(__dirname, 'support', 'quick-start-driver.js');
/** A new namespace's loopback starts down: bring it up, then run the command. */
const IN_NEW_NAMESPACE = [
  '-rn',
  'sh',
  '-c',
  '{ ip link set lo up || ifconfig lo up; } >/dev/null 2>&1 && exec "$@"',
  'sh',
];

type Where = { namespace: true } | { namespace: false } | undefined;

function takenPorts(command: string, args: string[]): { taken?: number[]; failure?: string } {
  const probe = spawnSync(command, [...args, process.execPath, DRIVER, 'probe'], { encoding: 'utf8', timeout: 20_000 });
  if (probe.status !== 0) return { failure: probe.error?.message ?? (probe.stderr.trim() || `exit ${probe.status}`) };
  return { taken: (JSON.parse(probe.stdout) as { taken: number[] }).taken };
}

/** Where the Quick start can run here: a fresh network namespace, else the machine itself when its default ports are free. */
function where(): Where {
  const inNamespace = takenPorts('unshare', IN_NEW_NAMESPACE);
  if (inNamespace.taken?.length === 0) return { namespace: true };
  const onHost = takenPorts('env', []);
  if (onHost.taken?.length === 0) return { namespace: false };
  process.stderr.write(
    'Quick start test SKIPPED: it needs the default ports free, and here ' +
      `no network namespace of its own could be made (unshare -rn: ${inNamespace.failure ?? `ports ${inNamespace.taken?.join(', ')} answer`}) ` +
      `and ports ${onHost.taken?.join(', ') ?? '(unknown)'} answer on this machine.\n`,
  );
  return undefined;
}

interface Reply {
  status: number;
  body: unknown;
}
/** What the driver prints. */
interface DriverResult {
  netns: string;
  up: boolean;
  listed?: Reply;
  created?: Reply;
  read?: Reply;
  requestError?: string;
  interrupted: boolean;
  exit?: { code: number | null; signal: string | null };
  output: string;
}

/** Pids of processes in the network namespace `netns` (as /proc/<pid>/ns/net reads), with their command. */
function processesInNamespace(netns: string): { pid: number; comm: string }[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .flatMap((pid) => {
      try {
        if (readlinkSync(`/proc/${pid}/ns/net`) !== netns) return [];
        return [{ pid: Number(pid), comm: commandOf(pid) }];
      } catch {
        return [];
      }
    });
}

function commandOf(pid: number | string): string {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return 'gone';
  }
}

/** Pids of processes whose command line names `text`: the private servers and their watchdogs name their data dir. */
function processesWithArg(text: string): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name) && Number(name) !== process.pid)
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(text);
      } catch {
        return false;
      }
    })
    .map(Number);
}

const place = where();
const describeWherePossible = place ? describe : describe.skip;

describeWherePossible('the Quick start (npm start with MariaDB and NATS installed but stopped)', () => {
  it('runs private instances on the default ports 3306 and 4222, serves the API with the dev credentials, and Ctrl-C stops everything', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'inventario-quick-start-'));
    // Nothing of this process's configuration: only what a shell always has, and where the private servers keep their data.
    const env = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: process.env.HOME ?? tmpdir(),
      LAUNCHER_DATA_DIR: dataDir,
    };
    const [command, args] = place!.namespace ? ['unshare', IN_NEW_NAMESPACE] : ['env', []];
    const driver = spawn(command, [...args, process.execPath, DRIVER], { env });
    let stdout = '';
    let stderr = '';
    driver.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    driver.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const code = await new Promise<number | null>((resolve) => driver.once('close', resolve));
    let result: DriverResult | undefined;
    try {
      expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
      result = JSON.parse(stdout) as DriverResult;
      const { output } = result;
      if (!result.up) throw new Error(`the launcher never reported everything up:\n${output}`);

      expect(output).toContain(
        `NATS: nothing answers on 127.0.0.1:4222; starting a private nats-server -js there (data in ${path.join(dataDir, 'nats')})`,
      );
      expect(output).toContain(
        `MariaDB: nothing answers on 127.0.0.1:3306; starting a private mariadbd there (data in ${path.join(dataDir, 'mariadb')})`,
      );
      expect(output).toContain(
        `nats           private nats-server -js on 127.0.0.1:4222, data in ${path.join(dataDir, 'nats')} (run by npm start`,
      );
      expect(output).toContain(
        `mariadb        private mariadbd on 127.0.0.1:3306, data in ${path.join(dataDir, 'mariadb')} (run by npm start`,
      );
      expect(output).toContain('curl -u admin:admin http://127.0.0.1:8080/api/productos');

      expect(result.requestError).toBeUndefined();
      expect(result.listed).toEqual({ status: 200, body: [] });
      expect(result.created?.status).toBe(201);
      const created = result.created!.body as { id: number; nombre: string; precio: number; cantidadEnStock: number };
      expect(created).toMatchObject({ nombre: 'Tornillo del inicio rápido', precio: 0.25, cantidadEnStock: 10 });
      expect(result.read).toEqual({ status: 200, body: created });

      expect(result.interrupted).toBe(true);
      expect(result.exit).toEqual({ code: 0, signal: null });
      expect(output).toContain('All services stopped.');
      expect(output).toContain(`Private NATS and MariaDB stopped; their data stays in ${dataDir}.`);
      // No server outlives the launcher; only their watchdog shells (and their `sleep 1`) may take a moment more.
      const SERVERS = ['mariadbd', 'nats-server'];
      if (place!.namespace) {
        expect(processesInNamespace(result.netns).filter((p) => SERVERS.includes(p.comm))).toEqual([]);
        await waitFor(
          () => processesInNamespace(result!.netns).length === 0,
          'every process of the namespace to end',
          10_000,
        );
      }
      expect(
        processesWithArg(dataDir)
          .map(commandOf)
          .filter((c) => SERVERS.includes(c)),
      ).toEqual([]);
      await waitFor(
        () => processesWithArg(dataDir).length === 0,
        'the watchdogs of the private servers to end',
        10_000,
      );
      // The data stays for the next run.
      expect(existsSync(path.join(dataDir, 'mariadb', 'data', 'inventario_producto'))).toBe(true);
      expect(existsSync(path.join(dataDir, 'nats', 'jetstream'))).toBe(true);
    } finally {
      for (const pid of [
        ...processesWithArg(dataDir),
        ...(result && place!.namespace ? processesInNamespace(result.netns).map((p) => p.pid) : []),
      ]) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});
