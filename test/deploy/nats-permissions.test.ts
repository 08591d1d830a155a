/**
 * The chart's NATS authorization (values.yaml `nats.config.merge`, generated
 * from packages/local-servers/src/nats-authorization.ts) on a real, private
 * nats-server, with the passwords in the server's environment as the chart
 * maps them from the Secret (issue 16 item 5, issue 21 item 5).
 *
 * Least privilege, proved refusal by refusal: no runtime user updates,
 * deletes, purges or creates a stream, or deletes a message; none touches a
 * durable consumer of another user (the internet-facing `bff` included:
 * its consumers are its own, by name); each publishes only its own events;
 * the operators' users do only their one job. And enough: the provisioning
 * command creates the streams as `provisioner`, then the real services,
 * connected with NATS_USER / NATS_PASSWORD, publish their events (bodega-svc's
 * stock ledger events too), reconcile a deleted warehouse, consume
 * ProductoEliminado, send the emails, follow the events with the BFF's read
 * cache, and re-create a durable consumer that disappears.
 */
import { generateKeyPairSync } from 'node:crypto';
import { credentials, Metadata } from '@grpc/grpc-js';
import { jetstream, jetstreamManager, type StreamConfig } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { CHART_TARGET, natsPasswordVariables, natsUsers, ownedDurables } from '@inventario/local-servers';
import { countPendingEvents, createDb, createLogger, USUARIO_METADATA_KEY } from '@inventario/platform';
import { BodegaServiceClient, ProductoServiceClient, UpdateProductoRequest } from '@inventario/proto';
import {
  createTestDatabase,
  freePort,
  metricSample,
  readStream,
  scrapeMetrics,
  waitFor,
  type TestDatabase,
} from '@inventario/testkit';
import { startApp as startBff } from '../../services/bff/src/app';
import { loadConfig as loadBffConfig } from '../../services/bff/src/config';
import { startApp as startBodega, type App as BodegaApp } from '../../services/bodega-svc/src/app';
import { loadConfig as loadBodegaConfig } from '../../services/bodega-svc/src/config';
import { PRODUCTO_CREADO_CONSUMER } from '../../services/bodega-svc/src/events/producto-creado-consumer';
import { PRODUCTO_ELIMINADO_CONSUMER } from '../../services/bodega-svc/src/events/producto-eliminado-consumer';
import { startApp as startNotifier, type NotifierApp } from '../../services/notifier/src/app';
import { loadConfig as loadNotifierConfig } from '../../services/notifier/src/config';
import { MAX_DELIVERIES_CONSUMER } from '../../services/notifier/src/events/max-deliveries';
import { HANDLERS } from '../../services/notifier/src/handlers';
import { sampleEnvelope } from '../../services/notifier/src/sample-events';
import { startSmtpSink, type SmtpSink } from '@inventario/testkit/smtp-sink';
import { startApp as startProducto, type App as ProductoApp } from '../../services/producto-svc/src/app';
import { loadConfig as loadProductoConfig } from '../../services/producto-svc/src/config';
import { BODEGA_ELIMINADA_CONSUMER } from '../../services/producto-svc/src/events/bodega-eliminada-consumer';
import { startApp as startIdentidad } from '../../services/identidad-svc/src/app';
import { loadConfig as loadIdentidadConfig } from '../../services/identidad-svc/src/config';
import { AUDITORIA_CONSUMER } from '../../services/identidad-svc/src/events/auditoria-consumer';
import { CHART_USERS, INSPECTOR, provisionAs, startChartNats, type ChartNats } from './support/chart-nats';
import { readText, readYaml } from './support/repo';

const STREAM = CHART_TARGET.stream;
const DLQ_STREAM = `${STREAM}_DLQ`;
const RUNTIME_USERS = ['producto-svc', 'bodega-svc', 'identidad-svc', 'notifier', 'bff'] as const;
const REFUSED = /Permissions Violation/;

interface ChartValues {
  nats: {
    config: { merge: { authorization: { users: unknown[] } } };
    container: { env: Record<string, { valueFrom: { secretKeyRef: { name: string; key: string } } }> };
  };
}

describe('the chart', () => {
  it('holds the authorization generated from its source (npm run chart:nats-authorization)', () => {
    const values = readYaml<ChartValues>('deploy/helm/inventario/values.yaml');
    expect(values.nats.config.merge.authorization.users).toEqual(
      natsUsers(CHART_TARGET, (variable) => `<< $${variable} >>`),
    );
  });

  it("gives the NATS server each user's password from the Secret, and the Secret each user and password", () => {
    const { env } = readYaml<ChartValues>('deploy/helm/inventario/values.yaml').nats.container;
    const secret = readText('deploy/helm/inventario/templates/secret.yaml');
    const example = readText('deploy/examples/existing-secret.yaml');
    for (const [user, variable] of Object.entries(natsPasswordVariables())) {
      expect(env[variable]?.valueFrom.secretKeyRef).toEqual({
        name: 'inventario-secrets',
        key: `${user}-nats-password`,
      });
      expect(secret).toContain(`${user}-nats-user: "${user}"`);
      expect(secret).toMatch(new RegExp(`${user}-nats-password: \\{\\{ required `));
      expect(example).toContain(`${user}-nats-user: ${user}\n  ${user}-nats-password: change-me`);
    }
  });

  it('lists as durables exactly the consumers the services create', () => {
    const created = [
      BODEGA_ELIMINADA_CONSUMER,
      PRODUCTO_ELIMINADO_CONSUMER,
      PRODUCTO_CREADO_CONSUMER,
      AUDITORIA_CONSUMER,
      ...HANDLERS.map((h) => h.name),
      MAX_DELIVERIES_CONSUMER,
    ];
    expect(ownedDurables().sort()).toEqual(created.sort());
  });
});

let nats: ChartNats;
let inspector: NatsConnection;

beforeAll(async () => {
  nats = await startChartNats();
  inspector = await nats.connectAs(INSPECTOR.user);
});

afterAll(async () => {
  await nats?.dispose();
});

async function streamConfig(name = STREAM): Promise<StreamConfig> {
  return (await (await jetstreamManager(inspector)).streams.info(name)).config;
}

test('each user needs its own password; wrong or missing credentials are refused', async () => {
  await expect(
    connect({ servers: nats.url, user: 'producto-svc', pass: CHART_USERS.bff, reconnect: false }),
  ).rejects.toThrow(/Authorization/i);
  await expect(connect({ servers: nats.url, reconnect: false })).rejects.toThrow(/Authorization/i);
});

describe('provisioned as `provisioner` by the provisioning command', () => {
  it("creates the stream (discard new) and the dead letters' stream, then changes nothing on a repeat", async () => {
    const first = await provisionAs(nats);
    expect({ code: first.code, stderr: first.stderr, report: JSON.parse(first.stdout) as unknown }).toEqual({
      code: 0,
      stderr: '',
      report: { [STREAM]: 'created', [DLQ_STREAM]: 'created' },
    });
    expect(await streamConfig()).toMatchObject({
      subjects: expect.arrayContaining(['inventario.>']),
      discard: 'new',
      max_bytes: 512 * 1024 * 1024,
    });
    expect(await streamConfig(DLQ_STREAM)).toMatchObject({
      subjects: ['inventario_dlq.>'],
      discard: 'new',
      max_age: 0,
      max_bytes: 128 * 1024 * 1024,
    });
    const again = await provisionAs(nats);
    expect(JSON.parse(again.stdout)).toEqual({ [STREAM]: 'unchanged', [DLQ_STREAM]: 'unchanged' });
  });

  it('fails as a service user, which may not change the stream, and changes nothing', async () => {
    const before = await streamConfig();
    const result = await provisionAs(nats, 'notifier', { NATS_STREAM_MAX_BYTES: String(64 * 1024 * 1024) });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/may not update the streams \(max_bytes differ\)/);
    expect(await streamConfig()).toEqual(before);
  });
});

describe('with the real services connected as their users', () => {
  let dbs: TestDatabase[] = [];
  let bodega: BodegaApp;
  let producto: ProductoApp;
  let notifier: NotifierApp;
  let sink: SmtpSink;
  let productoClient: ProductoServiceClient;
  let bodegaClient: BodegaServiceClient;

  const shared = () => ({
    NATS_URL: nats.url,
    NATS_STREAM: STREAM,
    NATS_SUBJECT_PREFIX: CHART_TARGET.prefix,
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
        ...nats.credentials('bodega-svc'),
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
        ...nats.credentials('producto-svc'),
      }),
      createLogger('producto-svc', 'silent'),
    );
    await Promise.all([bodega.ready, producto.ready]);
    sink = await startSmtpSink();
    notifier = await startNotifier(
      loadNotifierConfig({
        ...shared(),
        SMTP_URL: sink.url,
        // Its name lookups go to the services under test, never to whatever answers on the default ports.
        PRODUCTO_SVC_ADDR: `127.0.0.1:${producto.grpcPort}`,
        BODEGA_SVC_ADDR: `127.0.0.1:${bodega.grpcPort}`,
        SENDER_EMAIL: 'inventario@example.com',
        RECIPIENT_EMAIL: 'almacen@example.com',
        ...nats.credentials('notifier'),
      }),
      createLogger('notifier', 'silent'),
    );
    productoClient = new ProductoServiceClient(`127.0.0.1:${producto.grpcPort}`, credentials.createInsecure());
    bodegaClient = new BodegaServiceClient(`127.0.0.1:${bodega.grpcPort}`, credentials.createInsecure());
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
  const createBodega = (nombre: string) =>
    new Promise<number>((resolve, reject) =>
      bodegaClient.createBodega({ nombre, capacidad: 5 }, metadata(), (err, res) =>
        err ? reject(err) : resolve(res.bodega!.id),
      ),
    );
  const createProducto = (nombre: string, bodegaId?: number) =>
    new Promise<number>((resolve, reject) =>
      productoClient.createProducto(
        { nombre, precio: '1.00', cantidadEnStock: 0, ...(bodegaId ? { bodegaId } : {}) },
        metadata(),
        (err, res) => (err ? reject(err) : resolve(res.producto!.id)),
      ),
    );
  const deleteBodega = (id: number) =>
    new Promise<void>((resolve, reject) =>
      bodegaClient.deleteBodega({ id }, metadata(), (err) => (err ? reject(err) : resolve())),
    );
  const unassigned = async (productoId: number) => {
    const events = await readStream(inspector, STREAM);
    return events.some(
      (e) => e.subject === 'inventario.producto.actualizado' && e.body.subject === `/productos/${productoId}`,
    );
  };

  test('publish their events, reconcile a deleted warehouse and email every event', async () => {
    const bodegaId = await createBodega('Con permisos');
    const productoId = await createProducto('Tuerca', bodegaId);
    await deleteBodega(bodegaId);

    // producto-svc consumed BodegaEliminada, asked bodega-svc, and published the unassignment.
    await waitFor(() => unassigned(productoId), 'the reconciliation to unassign the product');
    // BodegaCreada, ProductoCreado, BodegaEliminada, ProductoActualizado: one email each.
    const emails = await sink.waitForEmails(4, 30_000);
    expect(emails.map((e) => e.subject.split(':')[0]).sort()).toEqual([
      'Bodega Eliminada',
      'Nueva Bodega Creada',
      'Nuevo Producto Creado',
      'Producto Actualizado',
    ]);
  }, 60_000);

  test('identidad-svc, as its user, publishes its events, audits them through its durable consumer and publishes the anchor', async () => {
    const testDb = await createTestDatabase('nats_auth_i');
    const { privateKey } = generateKeyPairSync('ed25519');
    const app = await startIdentidad(
      loadIdentidadConfig({
        ...shared(),
        ...grpc,
        DATABASE_URL: testDb.url,
        ...nats.credentials('identidad-svc'),
        PRINCIPAL_SIGNING_KEY: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
        BFF_USER: 'admin',
        BFF_PASSWORD: 'admin-s3cret',
      }),
      createLogger('identidad-svc', 'silent'),
    );
    const db = createDb(testDb.url);
    try {
      await app.ready;
      // The first ADMIN's creation is an event: published as identidad-svc, then audited from the stream (one row).
      await waitFor(async () => (await countPendingEvents(db)) === 0, 'identidad-svc to publish');
      expect((await readStream(inspector, STREAM)).map((e) => e.subject)).toContain(
        'inventario.identidad.usuario.creado',
      );
      // Anchored now, or already by the periodic anchor, which also runs once at start (either publishes it).
      await app.tareas.anclar();
      await waitFor(async () => (await countPendingEvents(db)) === 0, 'the anchor to be published');
      const anclas = (await readStream(inspector, STREAM)).filter((e) => e.subject === 'inventario.auditoria.ancla');
      expect(anclas.map((e) => (e.body.data as { seq: number }).seq)).toContain(1);
      const jsm = await jetstreamManager(inspector);
      await waitFor(async () => {
        const info = await jsm.consumers.info(STREAM, AUDITORIA_CONSUMER);
        return info.num_pending === 0 && info.num_ack_pending === 0 && info.delivered.consumer_seq > 0;
      }, 'the audit consumer to ack what it read');
    } finally {
      await app.stop();
      await db.destroy();
      await testDb.drop();
    }
  }, 60_000);

  test("bodega-svc publishes the stock ledger's events, and the notifier emails the StockBajo and acks it through its StockBajoHandler", async () => {
    const js = jetstream(await nats.connectAs('bodega-svc'));
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
    await waitFor(
      () => emails.some((e) => e.headers.get('x-inventario-event-id') === stockBajo.id),
      'the Stock Bajo email',
    );
    const jsm = await jetstreamManager(inspector);
    await waitFor(async () => {
      const info = await jsm.consumers.info(STREAM, 'StockBajoHandler');
      return info.ack_floor.stream_seq >= (stored[1] ?? 0) && info.num_ack_pending === 0;
    }, "the notifier's ack of the StockBajo");
    // Product 77 and warehouse 3 of the sample event exist in neither service: named by their ids.
    expect(emails.filter((e) => e.headers.get('x-inventario-event-id') === stockBajo.id).map((e) => e.subject)).toEqual(
      ['Stock Bajo: producto 77 en bodega 3'],
    );
  });

  test('bodega-svc consumes ProductoCreado through its durable bodega-svc-producto-creado, acks included', async () => {
    await createProducto('Tuerca');
    const created = await waitFor(async () => {
      const events = await readStream(inspector, STREAM);
      return events.findLast((e) => e.subject === 'inventario.producto.creado');
    }, 'the ProductoCreado');
    const jsm = await jetstreamManager(inspector);
    await waitFor(async () => {
      const info = await jsm.consumers.info(STREAM, PRODUCTO_CREADO_CONSUMER);
      return info.ack_floor.stream_seq >= created.seq && info.num_ack_pending === 0;
    }, `${PRODUCTO_CREADO_CONSUMER} to ack the ProductoCreado`);
  });

  test('bodega-svc consumes ProductoEliminado through its durable bodega-svc-producto-eliminado, acks included', async () => {
    const productoId = await createProducto('Arandela');
    await new Promise<void>((resolve, reject) =>
      productoClient.deleteProducto({ id: productoId }, metadata(), (err) => (err ? reject(err) : resolve())),
    );
    const deleted = await waitFor(async () => {
      const events = await readStream(inspector, STREAM);
      return events.find(
        (e) => e.subject === 'inventario.producto.eliminado' && e.body.subject === `/productos/${productoId}`,
      );
    }, 'the ProductoEliminado');
    const jsm = await jetstreamManager(inspector);
    await waitFor(async () => {
      const info = await jsm.consumers.info(STREAM, PRODUCTO_ELIMINADO_CONSUMER);
      return info.ack_floor.stream_seq >= deleted.seq && info.num_ack_pending === 0;
    }, `${PRODUCTO_ELIMINADO_CONSUMER} to ack the ProductoEliminado`);
  });

  test("the BFF's read cache follows the events as user bff, on a consumer it names: it serves from the cache and sees a write made behind its back", async () => {
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
        ...nats.credentials('bff'),
      }),
      createLogger('bff', 'silent'),
    );
    try {
      const metric = async (name: string, labels?: Record<string, string>) =>
        metricSample(await scrapeMetrics(bff.metricsPort), name, labels) ?? 0;
      await waitFor(
        async () => (await metric('bff_read_cache_bypassed')) === 0,
        'the read cache to follow the stream (its consumer created and confirmed)',
      );
      const names: string[] = [];
      for await (const info of (await jetstreamManager(inspector)).consumers.list(STREAM)) names.push(info.name);
      expect(names.filter((name) => !ownedDurables().includes(name))).toEqual([
        expect.stringMatching(/^bff-cache-[0-9a-f-]{36}$/),
      ]);

      const productoId = await createProducto('Leída');
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
          UpdateProductoRequest.fromPartial({
            producto: { id: productoId, nombre: 'Cambiada' },
            updateMask: ['nombre'],
          }),
          metadata(),
          (err) => (err ? reject(err) : resolve()),
        ),
      );
      await waitFor(
        async () => (await get()).nombre === 'Cambiada',
        'the BFF to serve the write it learnt of by its event',
      );
      expect(await metric('bff_read_cache_bypassed')).toBe(0);
    } finally {
      await bff.stop();
    }
  });

  describe('a durable consumer that disappears (an administrator deleted it) is re-created by its owner', () => {
    /** As an administrator; nats-server 2.9 may answer "directory not empty" while the consumer writes its state: asked again. */
    const deleteDurable = async (durable: string) => {
      const jsm = await jetstreamManager(inspector);
      await waitFor(() => jsm.consumers.delete(STREAM, durable), `the deletion of ${durable}`);
    };

    test("producto-svc's reconciliation consumer: a warehouse deleted afterwards is still reconciled", async () => {
      const jsm = await jetstreamManager(inspector);
      const before = await jsm.consumers.info(STREAM, BODEGA_ELIMINADA_CONSUMER);
      await deleteDurable(BODEGA_ELIMINADA_CONSUMER);
      await waitFor(
        async () => (await jsm.consumers.info(STREAM, BODEGA_ELIMINADA_CONSUMER)).created !== before.created,
        'producto-svc to re-create its consumer',
        30_000,
      );
      const bodegaId = await createBodega('Tras la pérdida');
      const productoId = await createProducto('Perno', bodegaId);
      await deleteBodega(bodegaId);
      await waitFor(() => unassigned(productoId), 'the reconciliation to unassign the product', 30_000);
    }, 60_000);

    test("the notifier's ProductoCreatedHandler: a product created afterwards is emailed", async () => {
      const jsm = await jetstreamManager(inspector);
      const before = await jsm.consumers.info(STREAM, 'ProductoCreatedHandler');
      await deleteDurable('ProductoCreatedHandler');
      await waitFor(
        async () => (await jsm.consumers.info(STREAM, 'ProductoCreatedHandler')).created !== before.created,
        'the notifier to re-create its consumer',
        30_000,
      );
      const productoId = await createProducto('Remache');
      await waitFor(
        () => sink.received.some((e) => e.subject === 'Nuevo Producto Creado: Remache'),
        `the email of product ${productoId}`,
        30_000,
      );
    }, 60_000);
  });

  describe('what no runtime user may do', () => {
    /** The stream, the letters' stream and every durable as they are before the attempts. */
    let before: {
      stream: StreamConfig;
      dlq: StreamConfig;
      messages: number;
      first: number;
      filters: Record<string, string | undefined>;
    };

    const snapshot = async () => {
      const jsm = await jetstreamManager(inspector);
      const info = await jsm.streams.info(STREAM);
      const filters: Record<string, string | undefined> = {};
      for (const durable of ownedDurables())
        filters[durable] = (await jsm.consumers.info(STREAM, durable)).config.filter_subject;
      return {
        stream: info.config,
        dlq: await streamConfig(DLQ_STREAM),
        messages: info.state.messages,
        first: info.state.first_seq,
        filters,
      };
    };

    beforeAll(async () => {
      // Every durable exists once each service consumes (bodega-svc's included).
      await waitFor(async () => {
        const jsm = await jetstreamManager(inspector);
        for (const durable of ownedDurables()) await jsm.consumers.info(STREAM, durable);
        return true;
      }, 'every durable consumer');
      before = await snapshot();
    });

    afterAll(async () => {
      // Nothing any attempt below tried stuck: same settings, same messages, same durables.
      const after = await snapshot();
      expect(after).toEqual({ ...before, messages: after.messages });
      expect(after.messages).toBeGreaterThanOrEqual(before.messages);
    });

    const request = async (user: string, subject: string, body: unknown = {}) => {
      const nc = await nats.connectAs(user);
      return nc.request(subject, JSON.stringify(body), { timeout: 2000 });
    };

    const streamAttempts = () =>
      [
        ['update the stream to max_msgs 1', `$JS.API.STREAM.UPDATE.${STREAM}`, { ...before.stream, max_msgs: 1 }],
        [
          "change the stream's subjects",
          `$JS.API.STREAM.UPDATE.${STREAM}`,
          { ...before.stream, subjects: ['inventario.producto.>'] },
        ],
        ['delete a message', `$JS.API.STREAM.MSG.DELETE.${STREAM}`, { seq: before.first }],
        ['purge the stream', `$JS.API.STREAM.PURGE.${STREAM}`, {}],
        ['delete the stream', `$JS.API.STREAM.DELETE.${STREAM}`, {}],
        ['create another stream', '$JS.API.STREAM.CREATE.OTRO', { name: 'OTRO', subjects: ['otro.>'] }],
        [
          "update the dead letters' stream",
          `$JS.API.STREAM.UPDATE.${DLQ_STREAM}`,
          { ...before.dlq, max_bytes: 1024 * 1024 },
        ],
        ['delete a dead letter', `$JS.API.STREAM.MSG.DELETE.${DLQ_STREAM}`, { seq: 1 }],
      ] as const;

    test.each(RUNTIME_USERS)(
      '%s cannot change, purge, delete or create a stream, nor delete a message',
      async (user) => {
        for (const [what, subject, body] of streamAttempts()) {
          await expect(request(user, subject, body).then(() => `${what}: allowed`)).rejects.toThrow(REFUSED);
        }
      },
    );

    test.each([
      ['bff', 'delete', `$JS.API.CONSUMER.DELETE.${STREAM}.${BODEGA_ELIMINADA_CONSUMER}`, {}],
      ['bff', 'delete', `$JS.API.CONSUMER.DELETE.${STREAM}.${PRODUCTO_ELIMINADO_CONSUMER}`, {}],
      ['bff', 'delete', `$JS.API.CONSUMER.DELETE.${STREAM}.ProductoCreatedHandler`, {}],
      ['bff', 'delete', `$JS.API.CONSUMER.DELETE.${STREAM}.${MAX_DELIVERIES_CONSUMER}`, {}],
      [
        'bff',
        're-create with its own filter',
        `$JS.API.CONSUMER.CREATE.${STREAM}.ProductoCreatedHandler.inventario.>`,
        {
          stream_name: STREAM,
          config: {
            name: 'ProductoCreatedHandler',
            durable_name: 'ProductoCreatedHandler',
            ack_policy: 'explicit',
            filter_subject: 'inventario.>',
          },
        },
      ],
      [
        'bff',
        'rewrite through the unnamed create (which honours a name in the body)',
        `$JS.API.CONSUMER.CREATE.${STREAM}`,
        {
          stream_name: STREAM,
          config: {
            name: BODEGA_ELIMINADA_CONSUMER,
            ack_policy: 'explicit',
            filter_subject: 'inventario.producto.creado',
          },
        },
      ],
      [
        'bff',
        'create as a durable',
        `$JS.API.CONSUMER.DURABLE.CREATE.${STREAM}.StockBajoHandler`,
        { stream_name: STREAM, config: { durable_name: 'StockBajoHandler' } },
      ],
      ['bff', 'pull from', `$JS.API.CONSUMER.MSG.NEXT.${STREAM}.StockBajoHandler`, { batch: 1, expires: 1e9 }],
      ['bff', 'read the info of', `$JS.API.CONSUMER.INFO.${STREAM}.${BODEGA_ELIMINADA_CONSUMER}`, {}],
      ['producto-svc', 'delete (even its own)', `$JS.API.CONSUMER.DELETE.${STREAM}.${BODEGA_ELIMINADA_CONSUMER}`, {}],
      [
        'producto-svc',
        're-create',
        `$JS.API.CONSUMER.CREATE.${STREAM}.${PRODUCTO_ELIMINADO_CONSUMER}.inventario.>`,
        {},
      ],
      [
        'producto-svc',
        'pull from',
        `$JS.API.CONSUMER.MSG.NEXT.${STREAM}.${PRODUCTO_ELIMINADO_CONSUMER}`,
        { batch: 1, expires: 1e9 },
      ],
      ['bodega-svc', 'delete', `$JS.API.CONSUMER.DELETE.${STREAM}.ProductoCreatedHandler`, {}],
      [
        'bodega-svc',
        're-create',
        `$JS.API.CONSUMER.CREATE.${STREAM}.${BODEGA_ELIMINADA_CONSUMER}.inventario.bodega.creada`,
        {},
      ],
      ['notifier', 'delete', `$JS.API.CONSUMER.DELETE.${STREAM}.${BODEGA_ELIMINADA_CONSUMER}`, {}],
      [
        'notifier',
        're-create',
        `$JS.API.CONSUMER.CREATE.${STREAM}.${PRODUCTO_ELIMINADO_CONSUMER}.inventario.producto.eliminado`,
        {},
      ],
    ] as const)('%s cannot %s a durable consumer it does not own (%s)', async (user, _what, subject, body) => {
      await expect(request(user, subject, body)).rejects.toThrow(REFUSED);
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
      ['identidad-svc', 'inventario.producto.creado'],
      ['identidad-svc', 'inventario.bodega.eliminada'],
      ['bodega-svc', 'inventario.identidad.usuario.actualizado'],
      ['bff', 'inventario.identidad.token.revocado'],
      ['provisioner', 'inventario.producto.creado'],
      ['dlq-replay', 'inventario.movimiento.registrado'],
      ['dlq-replay', 'inventario.stock.repuesto'],
      ['dlq-replay', 'inventario_dlq.producto.creado'],
    ] as const)(
      '%s cannot publish %s: refused by the server, and nothing reaches the stream',
      async (user, subject) => {
        const nc = await nats.connectAs(user);
        const { messages } = (await (await jetstreamManager(inspector)).streams.info(STREAM)).state;
        await expect(jetstream(nc).publish(subject, '{"forged":true}', { timeout: 2000 })).rejects.toThrow(REFUSED);
        await expect(nc.request(subject, '{"forged":true}', { timeout: 2000 })).rejects.toThrow(REFUSED);
        expect((await (await jetstreamManager(inspector)).streams.info(STREAM)).state.messages).toBe(messages);
      },
    );

    test.each([
      ['provisioner', 'delete the stream', `$JS.API.STREAM.DELETE.${STREAM}`],
      ['provisioner', 'purge the stream', `$JS.API.STREAM.PURGE.${STREAM}`],
      ['provisioner', 'delete a message', `$JS.API.STREAM.MSG.DELETE.${STREAM}`],
      ['provisioner', 'create a consumer', `$JS.API.CONSUMER.CREATE.${STREAM}.otro`],
      ['provisioner', 'delete a consumer', `$JS.API.CONSUMER.DELETE.${STREAM}.${BODEGA_ELIMINADA_CONSUMER}`],
      ['dlq-replay', 'delete a message of the events', `$JS.API.STREAM.MSG.DELETE.${STREAM}`],
      ['dlq-replay', 'purge the dead letters', `$JS.API.STREAM.PURGE.${DLQ_STREAM}`],
      ['dlq-replay', "update the dead letters' stream", `$JS.API.STREAM.UPDATE.${DLQ_STREAM}`],
      ['dlq-replay', 'create a consumer', `$JS.API.CONSUMER.CREATE.${STREAM}.otro`],
    ] as const)('the operator user %s cannot %s', async (user, _what, subject) => {
      await expect(request(user, subject, { seq: 1 })).rejects.toThrow(REFUSED);
    });
  });
});
