import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import * as path from 'node:path';
import { credentials, Metadata } from '@grpc/grpc-js';
import { BodegaServiceClient, ProductoServiceClient, type Producto } from '@inventario/proto';
import { dropDatabase } from '@inventario/platform';
import {
  connectTestNats,
  deleteStream,
  freePort,
  readStream,
  TEST_MYSQL_SERVER,
  TEST_NATS_URL,
  testEventNamespace,
  uniqueName,
  waitFor,
} from '@inventario/testkit';

const LAUNCHER = path.join(__dirname, '..', 'dist', 'main.js');

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
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => out, exited };
}

describe('npm start (dev launcher)', () => {
  const ns = testEventNamespace();
  const productoDb = `${TEST_MYSQL_SERVER}/${uniqueName('t_launch_p')}`;
  const bodegaDb = `${TEST_MYSQL_SERVER}/${uniqueName('t_launch_b')}`;

  afterAll(async () => {
    await dropDatabase(productoDb);
    await dropDatabase(bodegaDb);
    const nc = await connectTestNats();
    await deleteStream(nc, ns.stream);
    await nc.close();
  });

  it('creates missing databases, starts both services, serves gRPC and stops everything on Ctrl-C', async () => {
    const [pPort, bPort] = [await freePort(), await freePort()];
    const run = launch({
      PRODUCTO_DATABASE_URL: productoDb,
      BODEGA_DATABASE_URL: bodegaDb,
      PRODUCTO_GRPC_PORT: String(pPort),
      BODEGA_GRPC_PORT: String(bPort),
      NATS_URL: TEST_NATS_URL,
      NATS_STREAM: ns.stream,
      NATS_SUBJECT_PREFIX: ns.prefix,
    });
    try {
      await waitFor(() => run.output().includes('Inventario is up'), 'the launcher to report the services up', 45_000);
      expect(run.output()).toContain(`127.0.0.1:${pPort} (inventario.v1.ProductoService)`);
      expect(run.output()).toContain(`127.0.0.1:${bPort} (inventario.v1.BodegaService)`);

      const productos = new ProductoServiceClient(`127.0.0.1:${pPort}`, credentials.createInsecure());
      const bodegas = new BodegaServiceClient(`127.0.0.1:${bPort}`, credentials.createInsecure());
      const md = new Metadata();
      md.set('x-inventario-usuario', 'launcher-test');
      const created = await new Promise<Producto>((resolve, reject) =>
        productos.createProducto(
          { nombre: 'Tornillo', precio: '0.25', cantidadEnStock: 10 },
          md,
          (err, res) => (err ? reject(err) : resolve(res.producto!)),
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
      const events = await waitFor(async () => {
        const stored = await readStream(nc, ns.stream);
        return stored.length >= 2 ? stored : undefined;
      }, 'both creation events in the stream');
      await nc.close();
      expect(events.map((e) => e.subject).sort()).toEqual([`${ns.prefix}.bodega.creada`, `${ns.prefix}.producto.creado`]);

      run.child.kill('SIGINT');
      expect(await run.exited).toBe(0);
      expect(run.output()).toContain('All services stopped.');
    } finally {
      run.child.kill('SIGKILL');
    }
  });

  it('exits non-zero naming NATS_URL and the command that starts NATS when NATS does not answer', async () => {
    const run = launch({ NATS_URL: `nats://127.0.0.1:${await freePort()}`, PRODUCTO_DATABASE_URL: productoDb, BODEGA_DATABASE_URL: bodegaDb });
    expect(await run.exited).toBe(1);
    expect(run.output()).toContain('(NATS_URL)');
    expect(run.output()).toContain('/usr/sbin/nats-server -- -a 127.0.0.1 -p 4222 -js');
  });

  it('exits non-zero naming the database variable and the command that starts MariaDB when MariaDB does not answer', async () => {
    const run = launch({
      NATS_URL: TEST_NATS_URL,
      PRODUCTO_DATABASE_URL: `mysql://root@127.0.0.1:${await freePort()}/inventario_producto`,
    });
    expect(await run.exited).toBe(1);
    expect(run.output()).toContain('(PRODUCTO_DATABASE_URL)');
    expect(run.output()).toContain('/usr/sbin/mariadbd');
  });

  it('rejects an invalid variable with one line naming it', async () => {
    const run = launch({ PRODUCTO_GRPC_PORT: 'seventy' });
    expect(await run.exited).toBe(1);
    expect(run.output()).toMatch(/npm start: invalid configuration: PRODUCTO_GRPC_PORT: /);
  });
});
