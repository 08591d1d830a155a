import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { credentials, Metadata } from '@grpc/grpc-js';
import { BodegaServiceClient, ProductoServiceClient, type Producto } from '@inventario/proto';
import { connect } from '@nats-io/transport-node';
import { dropDatabase } from '@inventario/platform';
import {
  connectTestNats,
  deleteStream,
  freePort,
  readStream,
  startPrivateNatsServer,
  TEST_MYSQL_SERVER,
  TEST_NATS_URL,
  testEventNamespace,
  uniqueName,
  waitFor,
} from '@inventario/testkit';

const LAUNCHER = path.join(__dirname, '..', 'dist', 'main.js');
/** `npm run seed`, built. */
const SEED_MAIN = path.join(__dirname, '..', '..', '..', 'services', 'bff', 'dist', 'seed-main.js');
/** The banner's last line: the whole banner has been read once it is (a pipe may hand it over in pieces). */
const BANNER_END = 'Press Ctrl-C to stop everything.';

interface MailDevServer {
  listen(): Promise<void>;
  close(): Promise<void>;
}
// maildev ships no type declarations; this is the part of its API we use.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const startMailDev = require('maildev') as (config: Record<string, unknown>) => MailDevServer;

interface Run {
  child: ChildProcessWithoutNullStreams;
  output: () => string;
  exited: Promise<number | null>;
}

function launch(env: Record<string, string>): Run {
  const child = spawn(process.execPath, [LAUNCHER], { env: { ...process.env, LAUNCHER_LOG_FORMAT: 'json', ...env } });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  // 'close', not 'exit': only then has all of the child's output been read.
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  return { child, output: () => out, exited };
}

/** True when nothing listens on the port any more. */
function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** Pids of processes whose environment holds `entry` (Linux /proc), to find orphans of a launch. */
function processesWithEnv(entry: string): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name) && Number(name) !== process.pid)
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(entry);
      } catch {
        return false; // gone, or not ours to read
      }
    })
    .map(Number);
}

/** Pids of processes whose command line names `text` (Linux /proc): the private servers name their data dir. */
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

describe('npm start (dev launcher)', () => {
  /** Each launch gets its own stream, so one test's events never show up in another's. */
  const namespaces: ReturnType<typeof testEventNamespace>[] = [];
  const productoDb = `${TEST_MYSQL_SERVER}/${uniqueName('t_launch_p')}`;
  const bodegaDb = `${TEST_MYSQL_SERVER}/${uniqueName('t_launch_b')}`;
  const identidadDb = `${TEST_MYSQL_SERVER}/${uniqueName('t_launch_i')}`;
  const sentBucket = uniqueName('t_launch_sent');
  /** A private, complete environment: never the default databases, stream, KV bucket or ports. */
  const privateEnv = async (ns = testEventNamespace()): Promise<Record<string, string>> => {
    namespaces.push(ns);
    return {
      PRODUCTO_DATABASE_URL: productoDb,
      BODEGA_DATABASE_URL: bodegaDb,
      IDENTIDAD_DATABASE_URL: identidadDb,
      PRODUCTO_GRPC_PORT: String(await freePort()),
      BODEGA_GRPC_PORT: String(await freePort()),
      IDENTIDAD_GRPC_PORT: String(await freePort()),
      IDENTIDAD_METRICS_PORT: String(await freePort()),
      PORT: String(await freePort()),
      BFF_METRICS_PORT: String(await freePort()),
      PRODUCTO_METRICS_PORT: String(await freePort()),
      BODEGA_METRICS_PORT: String(await freePort()),
      NOTIFIER_METRICS_PORT: String(await freePort()),
      MAIL_CATCHER_SMTP_PORT: String(await freePort()),
      MAIL_CATCHER_WEB_PORT: String(await freePort()),
      NATS_URL: TEST_NATS_URL,
      NATS_STREAM: ns.stream,
      NATS_SUBJECT_PREFIX: ns.prefix,
      // Read by the notifier from the environment the launcher passes on.
      NOTIFIER_SENT_BUCKET: sentBucket,
      // Its record of the running system (sistema.json) goes here, never into the repository's .dev-data/.
      LAUNCHER_DATA_DIR: mkdtempSync(path.join(tmpdir(), 'launcher-data-')),
    };
  };

  afterAll(async () => {
    // However each test ended its launcher, no process it started may be left running.
    const orphans = await waitFor(
      () => (processesWithEnv(`NOTIFIER_SENT_BUCKET=${sentBucket}`).length === 0 ? [] : undefined),
      'every process the launches started to end',
      30_000,
    ).catch(() => processesWithEnv(`NOTIFIER_SENT_BUCKET=${sentBucket}`));
    for (const pid of orphans) process.kill(pid, 'SIGKILL');
    await dropDatabase(productoDb);
    await dropDatabase(bodegaDb);
    await dropDatabase(identidadDb);
    const nc = await connectTestNats();
    for (const ns of namespaces) await deleteStream(nc, ns.stream);
    await deleteStream(nc, `KV_${sentBucket}`);
    await nc.close();
    expect(orphans).toEqual([]);
  });

  it('serves REST on PORT with the dev credentials it announces, and the email of a create lands in the local inbox', async () => {
    const env = await privateEnv();
    const run = launch(env);
    try {
      await waitFor(() => run.output().includes(BANNER_END), 'the launcher to report everything up', 60_000);
      const out = run.output();
      expect(out).toContain('admin / admin (development defaults');
      expect(out).toContain(`http://127.0.0.1:${env.MAIL_CATCHER_WEB_PORT}/`);
      expect(out).toContain(`curl -u admin:admin http://127.0.0.1:${env.PORT}/api/productos`);

      const auth = `Basic ${Buffer.from('admin:admin').toString('base64')}`;
      const bodega = await fetch(`http://127.0.0.1:${env.PORT}/api/bodegas`, {
        method: 'POST',
        headers: { authorization: auth, 'content-type': 'application/json' },
        body: JSON.stringify({ nombre: 'Bodega del lanzador', capacidad: 10 }),
      });
      const bodegaId = ((await bodega.json()) as { id: number }).id;
      const created = await fetch(`http://127.0.0.1:${env.PORT}/api/productos`, {
        method: 'POST',
        headers: { authorization: auth, 'content-type': 'application/json' },
        body: JSON.stringify({ nombre: 'Tornillo del lanzador', precio: 0.25, cantidadEnStock: 10, bodegaId }),
      });
      expect(created.status).toBe(201);
      const producto = (await created.json()) as { id: number };
      expect((await fetch(`http://127.0.0.1:${env.PORT}/api/productos`)).status).toBe(401);

      // MailDev's REST API lists what the notifier sent to the catcher.
      const emails = await waitFor(
        async () => {
          const res = await fetch(`http://127.0.0.1:${env.MAIL_CATCHER_WEB_PORT}/email`);
          const list = (await res.json()) as { subject: string; html: string; to: { address: string }[] }[];
          return list.length > 1 ? list : undefined;
        },
        'the two creation emails in the local inbox',
        30_000,
      );
      expect(emails.map((e) => e.subject).sort()).toEqual([
        'Nueva Bodega Creada: Bodega del lanzador',
        'Nuevo Producto Creado: Tornillo del lanzador',
      ]);
      const email = emails.find((e) => e.subject.startsWith('Nuevo Producto Creado'))!;
      expect(email.to[0]!.address).toBe('almacen@localhost.localdomain');
      expect(email.html).toContain(String(producto.id));
      // The warehouse by name: the launcher points the notifier's lookups at its own bodega-svc.
      expect(email.html).toContain(`Bodega del lanzador (${bodegaId})`);

      // npm run seed follows the launcher to this system (its record), and the banner prints the exact command too.
      expect(out).toContain(
        `  sample data    PRODUCTO_GRPC_PORT=${env.PRODUCTO_GRPC_PORT} BODEGA_GRPC_PORT=${env.BODEGA_GRPC_PORT} npm run seed`,
      );
      const record = path.join(env.LAUNCHER_DATA_DIR!, 'sistema.json');
      expect(JSON.parse(readFileSync(record, 'utf8'))).toMatchObject({
        productoSvcAddr: `127.0.0.1:${env.PRODUCTO_GRPC_PORT}`,
      });
      const seed = spawnSync(process.execPath, [SEED_MAIN], {
        env: { PATH: process.env.PATH, LAUNCHER_DATA_DIR: env.LAUNCHER_DATA_DIR },
        encoding: 'utf8',
      });
      expect([seed.status, seed.stderr]).toEqual([0, '']);
      expect(seed.stdout).toContain(
        `Sistema: producto-svc 127.0.0.1:${env.PRODUCTO_GRPC_PORT}, bodega-svc 127.0.0.1:${env.BODEGA_GRPC_PORT} (npm start`,
      );
      expect(seed.stdout).toContain('10 productos nuevos');

      run.child.kill('SIGINT');
      expect(await run.exited).toBe(0);
      expect(run.output()).toContain('All services stopped.');
      // Stopped, it is no longer a system to seed.
      expect(existsSync(record)).toBe(false);
      for (const port of [env.PORT, env.MAIL_CATCHER_SMTP_PORT, env.MAIL_CATCHER_WEB_PORT])
        expect(await portIsFree(Number(port))).toBe(true);
    } finally {
      run.child.kill('SIGKILL');
    }
  });

  it('creates missing databases, starts both services, serves gRPC and stops each cleanly on Ctrl-C', async () => {
    const ns = testEventNamespace();
    const env = await privateEnv(ns);
    const [pPort, bPort] = [Number(env.PRODUCTO_GRPC_PORT), Number(env.BODEGA_GRPC_PORT)];
    const run = launch(env);
    try {
      await waitFor(() => run.output().includes(BANNER_END), 'the launcher to report the services up', 45_000);
      expect(run.output()).toContain(`127.0.0.1:${pPort} (inventario.v1.ProductoService)`);
      expect(run.output()).toContain(`127.0.0.1:${bPort} (inventario.v1.BodegaService)`);
      // producto-svc is told where bodega-svc is: its reconciliation asks it before unassigning.
      const told = processesWithEnv(`BODEGA_SVC_ADDR=127.0.0.1:${bPort}`);
      expect(processesWithEnv(`GRPC_PORT=${pPort}`).filter((pid) => told.includes(pid))).toHaveLength(1);
      // And bodega-svc where producto-svc is: its reconciliation asks it before writing a product's stock out.
      const toldBodega = processesWithEnv(`PRODUCTO_SVC_ADDR=127.0.0.1:${pPort}`);
      expect(processesWithEnv(`GRPC_PORT=${bPort}`).filter((pid) => toldBodega.includes(pid))).toHaveLength(1);
      // Each service serves its metrics on the port the launcher gave it, named in the summary.
      expect(run.output()).toContain(
        `metrics        http://127.0.0.1:<port>/metrics: producto-svc ${env.PRODUCTO_METRICS_PORT}, bodega-svc ${env.BODEGA_METRICS_PORT}, identidad-svc ${env.IDENTIDAD_METRICS_PORT}, bff ${env.BFF_METRICS_PORT}, notifier ${env.NOTIFIER_METRICS_PORT}`,
      );
      for (const [service, port] of [
        ['producto-svc', env.PRODUCTO_METRICS_PORT],
        ['bodega-svc', env.BODEGA_METRICS_PORT],
        ['identidad-svc', env.IDENTIDAD_METRICS_PORT],
        ['bff', env.BFF_METRICS_PORT],
        ['notifier', env.NOTIFIER_METRICS_PORT],
      ]) {
        const scrape = await fetch(`http://127.0.0.1:${port}/metrics`);
        expect(scrape.status).toBe(200);
        expect(await scrape.text()).toContain(`process_resident_memory_bytes{service="${service}"}`);
      }

      const productos = new ProductoServiceClient(`127.0.0.1:${pPort}`, credentials.createInsecure());
      const bodegas = new BodegaServiceClient(`127.0.0.1:${bPort}`, credentials.createInsecure());
      const md = new Metadata();
      md.set('x-inventario-usuario', 'launcher-test');
      const created = await new Promise<Producto>((resolve, reject) =>
        productos.createProducto({ nombre: 'Tornillo', precio: '0.25', cantidadEnStock: 10 }, md, (err, res) =>
          err ? reject(err) : resolve(res.producto!),
        ),
      );
      expect(created.precio).toBe('0.25');
      const bodegaId = await new Promise<number>((resolve, reject) =>
        bodegas.createBodega({ nombre: 'Central', ubicacion: 'Madrid', capacidad: 100 }, md, (err, res) =>
          err ? reject(err) : resolve(res.bodega!.id),
        ),
      );
      expect(bodegaId).toBeGreaterThan(0);
      productos.close();
      bodegas.close();

      const nc = await connectTestNats();
      // identidad-svc publishes to the same stream (its first ADMIN, its audit anchors): only the inventory's events count here.
      const inventario = (subject: string) =>
        !subject.startsWith(`${ns.prefix}.identidad.`) && !subject.startsWith(`${ns.prefix}.auditoria.`);
      const events = await waitFor(async () => {
        const stored = (await readStream(nc, ns.stream)).filter((e) => inventario(e.subject));
        return stored.length >= 3 ? stored : undefined;
      }, 'both creation events and the initial stock in the stream');
      await nc.close();
      // The product's 10 units are its initial stock, recorded in the ledger (MovimientoRegistrado, contract §10.6).
      expect(events.map((e) => e.subject).sort()).toEqual([
        `${ns.prefix}.bodega.creada`,
        `${ns.prefix}.movimiento.registrado`,
        `${ns.prefix}.producto.creado`,
      ]);

      run.child.kill('SIGINT');
      expect(await run.exited).toBe(0);
      expect(run.output()).toContain('All services stopped.');
      // Each service ran its own shutdown sequence to the end.
      expect(run.output()).toMatch(/\[producto-svc\] \{[^\n]*"msg":"shutdown complete"/);
      expect(run.output()).toMatch(/\[bodega-svc\] \{[^\n]*"msg":"shutdown complete"/);
      expect(run.output()).toMatch(/\[bff\] \{[^\n]*"msg":"shutdown complete"/);
      expect(run.output()).toMatch(/\[notifier\] \{[^\n]*"msg":"shutdown complete"/);
      expect(await portIsFree(pPort)).toBe(true);
      expect(await portIsFree(bPort)).toBe(true);
    } finally {
      run.child.kill('SIGKILL');
    }
  });

  it('leaves no service behind when the launcher itself is killed', async () => {
    const env = await privateEnv();
    const run = launch(env);
    await waitFor(() => run.output().includes(BANNER_END), 'the launcher to report the services up', 45_000);
    run.child.kill('SIGKILL');
    await run.exited;
    const ports = [
      env.PRODUCTO_GRPC_PORT,
      env.BODEGA_GRPC_PORT,
      env.IDENTIDAD_GRPC_PORT,
      env.IDENTIDAD_METRICS_PORT,
      env.PORT,
      env.BFF_METRICS_PORT,
      env.PRODUCTO_METRICS_PORT,
      env.BODEGA_METRICS_PORT,
      env.NOTIFIER_METRICS_PORT,
      env.MAIL_CATCHER_SMTP_PORT,
      env.MAIL_CATCHER_WEB_PORT,
    ].map(Number);
    await waitFor(
      async () => (await Promise.all(ports.map(portIsFree))).every(Boolean),
      'every process to stop',
      30_000,
    );
  });

  it('stops the services cleanly and exits when its output is closed (npm start | head)', async () => {
    const env = await privateEnv();
    const pipeline = spawn('bash', ['-c', `set -o pipefail; "${process.execPath}" "${LAUNCHER}" | head -1`], {
      env: { ...process.env, LAUNCHER_LOG_FORMAT: 'json', ...env },
    });
    let firstLine = '';
    pipeline.stdout.on('data', (c: Buffer) => (firstLine += c.toString()));
    const exited = new Promise<number | null>((resolve) => pipeline.once('close', (code) => resolve(code)));
    try {
      expect(await exited).toBe(0);
      expect(firstLine.trim()).not.toBe('');
      expect(await portIsFree(Number(env.PRODUCTO_GRPC_PORT))).toBe(true);
      expect(await portIsFree(Number(env.BODEGA_GRPC_PORT))).toBe(true);
    } finally {
      pipeline.kill('SIGKILL');
    }
  });

  it('runs a private MariaDB and NATS where nothing answers, keeps their data under LAUNCHER_DATA_DIR, and stops them on Ctrl-C; uses a MailDev already running', async () => {
    // The machine's own servers hold 3306 and 4222: URLs on free ports, where nothing answers, make the launcher run its own.
    const dataDir = mkdtempSync(path.join(tmpdir(), 'inventario-launcher-data-'));
    const [dbPort, natsPort] = [await freePort(), await freePort()];
    const env: Record<string, string> = {
      ...(await privateEnv()),
      LAUNCHER_DATA_DIR: dataDir,
      NATS_URL: `nats://127.0.0.1:${natsPort}`,
      PRODUCTO_DATABASE_URL: `mysql://root@127.0.0.1:${dbPort}/inventario_producto`,
      BODEGA_DATABASE_URL: `mysql://root@127.0.0.1:${dbPort}/inventario_bodega`,
      IDENTIDAD_DATABASE_URL: `mysql://root@127.0.0.1:${dbPort}/inventario_identidad`,
    };
    // As compose.yaml's MailDev on the catcher's ports: the launcher uses it instead of failing on taken ports.
    const mailDev = startMailDev({
      smtp: Number(env.MAIL_CATCHER_SMTP_PORT),
      web: Number(env.MAIL_CATCHER_WEB_PORT),
      ip: '127.0.0.1',
      webIp: '127.0.0.1',
      mailDirectory: path.join(dataDir, 'maildev'),
      silent: true,
    });
    await mailDev.listen();
    await waitFor(
      async () => (await fetch(`http://127.0.0.1:${env.MAIL_CATCHER_WEB_PORT}/email`)).ok,
      'the MailDev inbox to answer',
    );
    const run = launch(env);
    try {
      // mariadb-install-db makes the data directory first: slower than a start on the machine's servers.
      await Promise.race([
        waitFor(() => run.output().includes(BANNER_END), 'the launcher to report everything up', 150_000, 200),
        run.exited.then((code) => {
          throw new Error(`the launcher exited (${code}) before it was up: ${run.output()}`);
        }),
      ]);
      const out = run.output();
      expect(out).toContain(
        `mariadb        private mariadbd on 127.0.0.1:${dbPort}, data in ${path.join(dataDir, 'mariadb')} (run by npm start`,
      );
      expect(out).toContain(
        `nats           private nats-server -js on 127.0.0.1:${natsPort}, data in ${path.join(dataDir, 'nats')} (run by npm start`,
      );
      expect(out).toContain(`-> mysql://127.0.0.1:${dbPort}/inventario_producto`);
      expect(out).toContain(
        `inbox http://127.0.0.1:${env.MAIL_CATCHER_WEB_PORT}/ (the MailDev already running there, used as it is`,
      );
      expect(existsSync(path.join(dataDir, 'mariadb', 'data', 'inventario_producto'))).toBe(true);
      expect(existsSync(path.join(dataDir, 'mariadb', 'data', 'inventario_bodega'))).toBe(true);
      expect(existsSync(path.join(dataDir, 'nats', 'jetstream'))).toBe(true);
      expect(processesWithArg(dataDir).length).toBeGreaterThanOrEqual(2);

      const listed = await fetch(`http://127.0.0.1:${env.PORT}/api/productos`, {
        headers: { authorization: `Basic ${Buffer.from('admin:admin').toString('base64')}` },
      });
      expect(listed.status).toBe(200);

      // The private NATS runs the chart's authorization (issue 21 item 8): no anonymous client, each service as its own user.
      expect(out).toContain(
        `nats users     the chart's (each service as its own); passwords in ${path.join(dataDir, 'nats')}/passwords.json`,
      );
      await expect(connect({ servers: env.NATS_URL, reconnect: false })).rejects.toThrow(/Authorization/i);
      const passwords = JSON.parse(readFileSync(path.join(dataDir, 'nats', 'passwords.json'), 'utf8')) as Record<
        string,
        string
      >;
      expect(Object.keys(passwords).sort()).toEqual([
        'bff',
        'bodega-svc',
        'dlq-replay',
        'identidad-svc',
        'notifier',
        'producto-svc',
        'provisioner',
      ]);
      const asProducto = await connect({
        servers: env.NATS_URL,
        user: 'producto-svc',
        pass: passwords['producto-svc'],
        reconnect: false,
      });
      try {
        await expect(asProducto.request('inventario.bodega.eliminada', '{}', { timeout: 2000 })).rejects.toThrow(
          /Permissions Violation/,
        );
        await expect(asProducto.request('$JS.API.STREAM.DELETE.INVENTARIO', '', { timeout: 2000 })).rejects.toThrow(
          /Permissions Violation/,
        );
      } finally {
        await asProducto.close();
      }
      // The services work as those users: a creation's event reaches the notifier, which emails it.
      const created = await fetch(`http://127.0.0.1:${env.PORT}/api/productos`, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from('admin:admin').toString('base64')}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify({ nombre: 'Con usuarios de NATS', precio: 1, cantidadEnStock: 1 }),
      });
      expect(created.status).toBe(201);
      await waitFor(
        async () => {
          const emails = (await (await fetch(`http://127.0.0.1:${env.MAIL_CATCHER_WEB_PORT}/email`)).json()) as {
            subject: string;
            html: string;
          }[];
          return emails.some((e) => e.subject === 'Nuevo Producto Creado: Con usuarios de NATS');
        },
        'the email of the creation',
        30_000,
      );

      run.child.kill('SIGINT');
      expect(await run.exited).toBe(0);
      expect(run.output()).toContain('All services stopped.');
      expect(run.output()).toContain(`Private NATS and MariaDB stopped; their data stays in ${dataDir}.`);
      // The servers are gone when the launcher exits; their watchdog shells, killed last, a moment later.
      const command = (pid: number) => {
        try {
          return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
        } catch {
          return 'gone';
        }
      };
      expect(
        processesWithArg(dataDir)
          .map(command)
          .filter((c) => c !== 'sh' && c !== 'gone'),
      ).toEqual([]);
      await waitFor(
        () => processesWithArg(dataDir).length === 0,
        'the watchdogs of the private servers to end',
        10_000,
      );
      expect(await portIsFree(dbPort)).toBe(true);
      expect(await portIsFree(natsPort)).toBe(true);
      // Kept for the next run.
      expect(existsSync(path.join(dataDir, 'mariadb', 'data', 'inventario_producto'))).toBe(true);
    } finally {
      run.child.kill('SIGKILL');
      await mailDev.close();
      for (const pid of processesWithArg(dataDir)) process.kill(pid, 'SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 240_000);

  it('reports every problem at once, naming each variable, and the one command that installs missing server programs', async () => {
    const dataDir = path.join(tmpdir(), uniqueName('inventario-launcher-never'));
    const nowhere = path.join(tmpdir(), uniqueName('no-such-program'));
    const run = launch({
      ...(await privateEnv()),
      LAUNCHER_DATA_DIR: dataDir,
      // Nothing answers at either, and neither program is found: nothing to run privately.
      NATS_SERVER_BIN: nowhere,
      MARIADBD_BIN: nowhere,
      MARIADB_INSTALL_DB_BIN: nowhere,
      NATS_URL: `nats://127.0.0.1:${await freePort()}`,
      PRODUCTO_DATABASE_URL: `mysql://root@127.0.0.1:${await freePort()}/inventario_producto`,
      // With credentials it is not the launcher's to run: it says how to start the machine's own.
      BODEGA_DATABASE_URL: `mysql://inventario:S3CRETO@127.0.0.1:${await freePort()}/inventario_bodega`,
    });
    expect(await run.exited).toBe(1);
    const out = run.output();
    expect(out).toMatch(
      /NATS_URL: nothing answers at nats:\/\/127\.0\.0\.1:\d+, and nats-server, to run a private NATS there, is not installed/,
    );
    expect(out).toMatch(
      /PRODUCTO_DATABASE_URL: nothing answers at 127\.0\.0\.1:\d+, and mariadbd \/ mariadb-install-db, to run a private MariaDB there, are not installed/,
    );
    // This machine is Debian, as root: apt-get, without sudo.
    expect(out).toContain('Install them with:\n    apt-get install -y nats-server mariadb-server\n');
    expect(out).toContain('docker compose up -d');
    expect(out).toContain('BODEGA_DATABASE_URL: MariaDB at');
    expect(out).toContain('/usr/sbin/mariadbd');
    expect(out).not.toContain('S3CRETO');
    expect(out).not.toContain('Acquire connection error'); // no driver noise beside our message
    expect(out).not.toContain('starting a private');
    expect(existsSync(dataDir)).toBe(false);
  });

  it('refuses a NATS server that runs without JetStream', async () => {
    const nats = await startPrivateNatsServer({ jetstream: false });
    try {
      const run = launch({ ...(await privateEnv()), NATS_URL: nats.url });
      expect(await run.exited).toBe(1);
      expect(run.output()).toContain(`NATS_URL: NATS at ${nats.url} runs without JetStream`);
    } finally {
      await nats.dispose();
    }
  });

  it('refuses a port that is already in use, naming its variable', async () => {
    const env = await privateEnv();
    const squatter: Server = createServer();
    await new Promise<void>((resolve) => squatter.listen(Number(env.BODEGA_GRPC_PORT), '127.0.0.1', resolve));
    try {
      const run = launch(env);
      expect(await run.exited).toBe(1);
      expect(run.output()).toContain(`BODEGA_GRPC_PORT: port ${env.BODEGA_GRPC_PORT} on 127.0.0.1 is not available`);
      expect(run.output()).not.toContain('Inventario is up');
    } finally {
      await new Promise((resolve) => squatter.close(resolve));
    }
  });

  it.each([
    [{ PRODUCTO_GRPC_PORT: 'seventy' }, /PRODUCTO_GRPC_PORT: /],
    [
      { PRODUCTO_GRPC_PORT: '50060', BODEGA_GRPC_PORT: '50060' },
      /BODEGA_GRPC_PORT: must differ from PRODUCTO_GRPC_PORT/,
    ],
    [{ PORT: '50061', BODEGA_GRPC_PORT: '50061' }, /PORT: must differ from BODEGA_GRPC_PORT/],
    [{ PORT: '50062', NOTIFIER_METRICS_PORT: '50062' }, /NOTIFIER_METRICS_PORT: must differ from PORT/],
    [{ SENDER_EMAIL: 'not an address' }, /SENDER_EMAIL: /],
    [{ RECIPIENT_EMAIL: 'a@example.com,not an address' }, /RECIPIENT_EMAIL: must be one email address or several/],
    // Checked before anything starts, and the password is never echoed.
    [
      { SMTP_URL: 'ftp://usuario:S3CRETO@mail.example.com' },
      /SMTP_URL: must start with smtp:\/\/ or smtps:\/\/(?![\s\S]*S3CRETO)/,
    ],
    [{ EVENT_TYPE_NAMESPACE: 'a..b' }, /EVENT_TYPE_NAMESPACE: /],
    [
      {
        BODEGA_DATABASE_URL: 'mysql://root@127.0.0.1:3306/inventario_producto',
        PRODUCTO_DATABASE_URL: 'mysql://root@127.0.0.1:3306/inventario_producto',
      },
      /BODEGA_DATABASE_URL: must name another database/,
    ],
  ])('rejects the invalid environment %j with one line naming the variable', async (bad, pattern) => {
    const run = launch({ ...(await privateEnv()), ...bad });
    expect(await run.exited).toBe(1);
    expect(run.output()).toMatch(/npm start: invalid configuration: /);
    expect(run.output()).toMatch(pattern);
  });
});
