/**
 * The chart's NATS authorization (values.yaml `nats.config.merge`, issue 16
 * item 5) on a real, private nats-server: rendered as the nats chart renders
 * it (`<< $VAR >>` becomes an unquoted environment reference), with the
 * passwords in the server's environment as the chart maps them from the
 * Secret. Each service may publish only its own subjects: producto-svc
 * cannot forge a BodegaEliminada, bodega-svc a product event, the notifier
 * any event. And the permissions are enough for the real services, connected
 * with NATS_USER / NATS_PASSWORD, to do their work: publish their events
 * (bodega-svc's stock ledger events too), reconcile a deleted warehouse,
 * consume ProductoEliminado (bodega-svc), send the emails (StockBajo too),
 * and for the BFF, which publishes nothing, follow the events with its read
 * cache's ephemeral consumer.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { credentials, Metadata } from '@grpc/grpc-js';
import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { createLogger, USUARIO_METADATA_KEY } from '@inventario/platform';
import { BodegaServiceClient, ProductoServiceClient, UpdateProductoRequest } from '@inventario/proto';
import {
  createTestDatabase,
  freePort,
  metricSample,
  readStream,
  scrapeMetrics,
  startPrivateNatsServer,
  waitFor,
  type PrivateNatsServer,
  type TestDatabase,
} from '@inventario/testkit';
import { parse } from 'yaml';
import { startApp as startBff } from '../../services/bff/src/app';
import { loadConfig as loadBffConfig } from '../../services/bff/src/config';
import { startApp as startBodega, type App as BodegaApp } from '../../services/bodega-svc/src/app';
import { loadConfig as loadBodegaConfig } from '../../services/bodega-svc/src/config';
import { startApp as startNotifier, type NotifierApp } from '../../services/notifier/src/app';
import { loadConfig as loadNotifierConfig } from '../../services/notifier/src/config';
import { sampleEnvelope } from '../../services/notifier/src/sample-events';
import { startSmtpSink, type SmtpSink } from '../../services/notifier/test/support/smtp-sink';
import { startApp as startProducto, type App as ProductoApp } from '../../services/producto-svc/src/app';
import { loadConfig as loadProductoConfig } from '../../services/producto-svc/src/config';

/** The passwords, as the Secret would hold them, by the environment variable the chart's NATS reads. */
const PASSWORDS = {
  PRODUCTO_SVC_NATS_PASSWORD: 'producto-s3cret',
  BODEGA_SVC_NATS_PASSWORD: 'bodega-s3cret',
  NOTIFIER_NATS_PASSWORD: 'notifier-s3cret',
  BFF_NATS_PASSWORD: 'bff-s3cret',
};
const USERS = {
  'producto-svc': PASSWORDS.PRODUCTO_SVC_NATS_PASSWORD,
  'bodega-svc': PASSWORDS.BODEGA_SVC_NATS_PASSWORD,
  notifier: PASSWORDS.NOTIFIER_NATS_PASSWORD,
  bff: PASSWORDS.BFF_NATS_PASSWORD,
};
/** The test's own user, to read the stream; not part of the chart. */
const INSPECTOR = { user: 'inspector', pass: 'inspector-s3cret' };

interface ChartUser {
  user: string;
  password: string;
  permissions: unknown;
}

/** values.yaml's authorization block as nats.conf text, as the nats chart renders `config.merge`. */
function chartAuthorization(): { users: ChartUser[]; conf: string } {
  const values = parse(readFileSync(join(__dirname, '../../deploy/helm/inventario/values.yaml'), 'utf8')) as {
    nats: { config: { merge: { authorization: { users: ChartUser[] } } } };
  };
  const { users } = values.nats.config.merge.authorization;
  const all = [...users, { user: INSPECTOR.user, password: INSPECTOR.pass, permissions: { publish: '>', subscribe: '>' } }];
  const conf = `authorization: ${JSON.stringify({ users: all }, null, 2)}\n`.replace(/"<< (\$[A-Z0-9_]+) >>"/g, '$1');
  return { users, conf };
}

let nats: PrivateNatsServer;
const connections: NatsConnection[] = [];

async function connectAs(user: string, pass: string): Promise<NatsConnection> {
  const nc = await connect({ servers: nats.url, user, pass, reconnect: false });
  connections.push(nc);
  return nc;
}

beforeAll(async () => {
  nats = await startPrivateNatsServer({ config: chartAuthorization().conf, env: PASSWORDS });
});

afterAll(async () => {
  for (const nc of connections) await nc.close().catch(() => undefined);
  await nats?.dispose();
});

test('the chart gives each service its own user, with the password from the environment (the Secret), and refuses wrong ones', async () => {
  expect(
    chartAuthorization()
      .users.map((u) => u.user)
      .sort(),
  ).toEqual(Object.keys(USERS).sort());
  // The configuration names the variables only; the passwords stay in the environment.
  for (const password of Object.values(PASSWORDS)) expect(chartAuthorization().conf).not.toContain(password);
  expect(chartAuthorization().conf).toContain('password": $PRODUCTO_SVC_NATS_PASSWORD');
  await expect(connect({ servers: nats.url, user: 'producto-svc', pass: 'wrong', reconnect: false })).rejects.toThrow(/Authorization/i);
  await expect(connect({ servers: nats.url, reconnect: false })).rejects.toThrow(/Authorization/i);
});

describe('with the real services connected as their users', () => {
  let dbs: TestDatabase[] = [];
  let bodega: BodegaApp;
  let producto: ProductoApp;
  let notifier: NotifierApp;
  let sink: SmtpSink;
  let productoClient: ProductoServiceClient;
  let bodegaClient: BodegaServiceClient;
  let inspector: NatsConnection;

  const shared = () => ({
    NATS_URL: nats.url,
    NATS_STREAM: 'INVENTARIO',
    NATS_SUBJECT_PREFIX: 'inventario',
    METRICS_PORT: '0',
    METRICS_HOST: '127.0.0.1',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
  });
  const grpc = { GRPC_PORT: '0', GRPC_HOST: '127.0.0.1', SHUTDOWN_DRAIN_MS: '0', DB_CHECK_INTERVAL_MS: '200' };

  beforeAll(async () => {
    dbs = [await createTestDatabase('nats_auth_b'), await createTestDatabase('nats_auth_p')];
    const [bodegaDb, productoDb] = dbs as [TestDatabase, TestDatabase];
    // Each reconciliation asks the other service: producto-svc's port is known before bodega-svc starts.
    const productoPort = await freePort();
    bodega = await startBodega(
      loadBodegaConfig({
        ...shared(),
        ...grpc,
        DATABASE_URL: bodegaDb.url,
        PRODUCTO_SVC_ADDR: `127.0.0.1:${productoPort}`,
        NATS_USER: 'bodega-svc',
        NATS_PASSWORD: USERS['bodega-svc'],
      }),
      createLogger('bodega-svc', 'silent'),
    );
    producto = await startProducto(
      loadProductoConfig({
        ...shared(),
        ...grpc,
        GRPC_PORT: String(productoPort),
        DATABASE_URL: productoDb.url,
        BODEGA_SVC_ADDR: `127.0.0.1:${bodega.grpcPort}`,
        NATS_USER: 'producto-svc',
        NATS_PASSWORD: USERS['producto-svc'],
      }),
      createLogger('producto-svc', 'silent'),
    );
    await Promise.all([bodega.ready, producto.ready]);
    sink = await startSmtpSink();
    notifier = await startNotifier(
      loadNotifierConfig({
        ...shared(),
        SMTP_URL: sink.url,
        SENDER_EMAIL: 'inventario@example.com',
        RECIPIENT_EMAIL: 'almacen@example.com',
        NATS_USER: 'notifier',
        NATS_PASSWORD: USERS.notifier,
      }),
      createLogger('notifier', 'silent'),
    );
    productoClient = new ProductoServiceClient(`127.0.0.1:${producto.grpcPort}`, credentials.createInsecure());
    bodegaClient = new BodegaServiceClient(`127.0.0.1:${bodega.grpcPort}`, credentials.createInsecure());
    inspector = await connectAs(INSPECTOR.user, INSPECTOR.pass);
  }, 120_000);

  afterAll(async () => {
    productoClient?.close();
    bodegaClient?.close();
    await notifier?.stop();
    await producto?.stop();
    await bodega?.stop();
    await sink?.stop();
    for (const db of dbs) await db.drop();
  });

  const metadata = () => {
    const md = new Metadata();
    md.set(USUARIO_METADATA_KEY, 'ana');
    return md;
  };

  test('publish their events, reconcile a deleted warehouse and email every event', async () => {
    const bodegaId = await new Promise<number>((resolve, reject) =>
      bodegaClient.createBodega({ nombre: 'Con permisos', capacidad: 5 }, metadata(), (err, res) => (err ? reject(err) : resolve(res.bodega!.id))),
    );
    const productoId = await new Promise<number>((resolve, reject) =>
      productoClient.createProducto({ nombre: 'Tuerca', precio: '1.00', cantidadEnStock: 1, bodegaId }, metadata(), (err, res) =>
        err ? reject(err) : resolve(res.producto!.id),
      ),
    );
    await new Promise<void>((resolve, reject) => bodegaClient.deleteBodega({ id: bodegaId }, metadata(), (err) => (err ? reject(err) : resolve())));

    // producto-svc consumed BodegaEliminada, asked bodega-svc, and published the unassignment.
    await waitFor(async () => {
      const events = await readStream(inspector, 'INVENTARIO');
      return events.some((e) => e.subject === 'inventario.producto.actualizado' && e.body.subject === `/productos/${productoId}`);
    }, 'the reconciliation to unassign the product');
    // BodegaCreada, ProductoCreado, BodegaEliminada, ProductoActualizado: one email each.
    const emails = await sink.waitForEmails(4, 30_000);
    expect(emails.map((e) => e.subject).sort()).toEqual(['Bodega Eliminada', 'Nueva Bodega Creada', 'Nuevo Producto Creado', 'Producto Actualizado']);
  }, 60_000);

  test("bodega-svc publishes the stock ledger's events, and the notifier emails the StockBajo and acks it through its StockBajoHandler", async () => {
    const js = jetstream(await connectAs('bodega-svc', USERS['bodega-svc']));
    const stockBajo = sampleEnvelope('StockBajo', { id: 77 });
    const stored: number[] = [];
    for (const [subject, type] of [
      ['inventario.movimiento.registrado', 'MovimientoRegistrado'],
      ['inventario.stock.bajo', 'StockBajo'],
      ['inventario.stock.repuesto', 'StockRepuesto'],
    ] as const) {
      const envelope = type === 'StockBajo' ? stockBajo : sampleEnvelope(type);
      stored.push((await js.publish(subject, JSON.stringify(envelope), { msgID: envelope.id, timeout: 5000 })).seq);
    }
    expect(stored.every((seq) => seq > 0)).toBe(true);

    const emails = await sink.waitForEmails(1);
    await waitFor(() => emails.some((e) => e.headers.get('x-inventario-event-id') === stockBajo.id), 'the Stock Bajo email');
    const jsm = await jetstreamManager(inspector);
    await waitFor(async () => {
      const info = await jsm.consumers.info('INVENTARIO', 'StockBajoHandler');
      return info.ack_floor.stream_seq >= (stored[1] ?? 0) && info.num_ack_pending === 0;
    }, "the notifier's ack of the StockBajo");
    expect(emails.filter((e) => e.headers.get('x-inventario-event-id') === stockBajo.id).map((e) => e.subject)).toEqual(['Stock Bajo']);
  });

  test('bodega-svc consumes ProductoEliminado through its durable bodega-svc-producto-eliminado, acks included', async () => {
    const nc = await connectAs('bodega-svc', USERS['bodega-svc']);
    const jsm = await jetstreamManager(nc);
    const durable = 'bodega-svc-producto-eliminado';
    // The service creates it at start once it consumes ProductoEliminado; created here if not yet.
    await jsm.consumers.info('INVENTARIO', durable).catch(() =>
      jsm.consumers.add('INVENTARIO', {
        durable_name: durable,
        filter_subject: 'inventario.producto.eliminado',
        ack_policy: AckPolicy.Explicit,
        deliver_policy: DeliverPolicy.All,
      }),
    );
    const productoId = await new Promise<number>((resolve, reject) =>
      productoClient.createProducto({ nombre: 'Arandela', precio: '0.10', cantidadEnStock: 0 }, metadata(), (err, res) =>
        err ? reject(err) : resolve(res.producto!.id),
      ),
    );
    await new Promise<void>((resolve, reject) => productoClient.deleteProducto({ id: productoId }, metadata(), (err) => (err ? reject(err) : resolve())));
    const deleted = await waitFor(async () => {
      const events = await readStream(inspector, 'INVENTARIO');
      return events.find((e) => e.subject === 'inventario.producto.eliminado' && e.body.subject === `/productos/${productoId}`);
    }, 'the ProductoEliminado');

    // Pulled and acked as bodega-svc (by this test, or by the service itself when it consumes).
    const consumer = await jetstream(nc).consumers.get('INVENTARIO', durable);
    await waitFor(async () => {
      const msg = await consumer.next({ expires: 1000 });
      if (msg) await msg.ackAck();
      const info = await jsm.consumers.info('INVENTARIO', durable);
      return info.ack_floor.stream_seq >= deleted.seq && info.num_ack_pending === 0;
    }, `${durable} to ack the ProductoEliminado`);
  });

  test("the BFF's read cache follows the events as user bff: it serves from the cache and sees a write made behind its back", async () => {
    const bff = await startBff(
      loadBffConfig({
        ...shared(),
        PORT: '0',
        HOST: '127.0.0.1',
        BFF_USER: 'ana',
        BFF_PASSWORD: 'ana-pass',
        PRODUCTO_SVC_ADDR: `127.0.0.1:${producto.grpcPort}`,
        BODEGA_SVC_ADDR: `127.0.0.1:${bodega.grpcPort}`,
        SHUTDOWN_DRAIN_MS: '0',
        READ_CACHE_MAX_ENTRIES: '100',
        NATS_USER: 'bff',
        NATS_PASSWORD: USERS.bff,
      }),
      createLogger('bff', 'silent'),
    );
    try {
      const metric = async (name: string, labels?: Record<string, string>) => metricSample(await scrapeMetrics(bff.metricsPort), name, labels) ?? 0;
      await waitFor(async () => (await metric('bff_read_cache_bypassed')) === 0, 'the read cache to follow the stream (its consumer created and confirmed)');
      const productoId = await new Promise<number>((resolve, reject) =>
        productoClient.createProducto({ nombre: 'Leída', precio: '1.00', cantidadEnStock: 1 }, metadata(), (err, res) =>
          err ? reject(err) : resolve(res.producto!.id),
        ),
      );
      const get = async () => {
        const res = await fetch(`http://127.0.0.1:${bff.httpPort}/api/productos/${productoId}`, {
          headers: { authorization: `Basic ${Buffer.from('ana:ana-pass').toString('base64')}` },
        });
        return (await res.json()) as { nombre: string };
      };
      // The first read's fill is refused if the creation's event arrives while it is in flight.
      await waitFor(async () => {
        await get();
        return (await metric('bff_read_cache_hits_total', { kind: 'producto' })) > 0;
      }, 'a read served from the cache');
      // Written straight to producto-svc: only the event can tell the BFF.
      await new Promise<void>((resolve, reject) =>
        productoClient.updateProducto(
          UpdateProductoRequest.fromPartial({ producto: { id: productoId, nombre: 'Cambiada' }, updateMask: ['nombre'] }),
          metadata(),
          (err) => (err ? reject(err) : resolve()),
        ),
      );
      await waitFor(async () => (await get()).nombre === 'Cambiada', 'the BFF to serve the write it learnt of by its event');
      expect(await metric('bff_read_cache_bypassed')).toBe(0);
    } finally {
      await bff.stop();
    }
  });

  test.each([
    ['bff', 'inventario.producto.creado'],
    ['bff', 'inventario.bodega.eliminada'],
    ['bff', 'inventario.movimiento.registrado'],
    ['producto-svc', 'inventario.bodega.eliminada'],
    ['producto-svc', 'inventario.stock.bajo'],
    ['producto-svc', 'inventario.movimiento.registrado'],
    ['bodega-svc', 'inventario.producto.creado'],
    ['bodega-svc', 'inventario.producto.eliminado'],
    ['notifier', 'inventario.producto.actualizado'],
    ['notifier', 'inventario.bodega.eliminada'],
    ['notifier', 'inventario.stock.bajo'],
  ] as const)('%s cannot publish %s: refused by the server, and nothing reaches the stream', async (user, subject) => {
    const nc = await connectAs(user, USERS[user]);
    const before = (await readStream(inspector, 'INVENTARIO')).length;
    await expect(jetstream(nc).publish(subject, '{"forged":true}', { timeout: 2000 })).rejects.toThrow(/Permissions Violation|timeout/i);
    await expect(nc.request(subject, '{"forged":true}', { timeout: 2000 })).rejects.toThrow(/Permissions Violation|timeout|no responders/i);
    const after = await readStream(inspector, 'INVENTARIO');
    expect(after.length).toBe(before);
  });
});

test('the bff user cannot delete or purge the stream, nor create a durable consumer the old way', async () => {
  const nc = await connectAs('bff', USERS.bff);
  await expect(nc.request('$JS.API.STREAM.DELETE.INVENTARIO', '', { timeout: 2000 })).rejects.toThrow(/Permissions Violation|timeout|no responders/i);
  await expect(nc.request('$JS.API.STREAM.PURGE.INVENTARIO', '', { timeout: 2000 })).rejects.toThrow(/Permissions Violation|timeout|no responders/i);
  await expect(nc.request('$JS.API.CONSUMER.DURABLE.CREATE.INVENTARIO.x', '{}', { timeout: 2000 })).rejects.toThrow(
    /Permissions Violation|timeout|no responders/i,
  );
});
