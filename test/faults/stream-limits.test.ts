/**
 * No silent drops at the stream's byte cap (issue 21 item 12). The review
 * saw 512 MiB with discard-old hold about 8,000 events with large
 * descriptions: one forced delete of a big warehouse emits that many, and the
 * stream then dropped its oldest events before the notifier had read them.
 * Here, at the same proportion: a stream capped at 8 MiB
 * (NATS_STREAM_MAX_BYTES) and a warehouse of 3,000 products with 20 KB
 * descriptions, force-deleted through the built BFF and services (a private
 * nats-server, the suite's mariadbd), about 60 MB of ProductoActualizado
 * events while a durable consumer (as the notifier's) reads none. Proved:
 * the full stream refuses the rest, keeps every event it took (its first
 * sequence stays 1), the remaining events wait in the outbox; once an
 * operator raises the cap they all go out, and the consumer receives one
 * event per product, in order, none missing. With discard-old the stream's
 * first sequence moves past events nobody read, and this test fails.
 */
import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { countPendingEvents, createDb, type Knex } from '@inventario/platform';
import { connectTestNats, startPrivateNatsServer, waitFor, type PrivateNatsServer } from '@inventario/testkit';
import { seedProductos } from '@inventario/testkit';
import { killAllServiceProcesses, startProcessStack, type ProcessStack } from './support/processes';

const PRODUCTOS = 3000;
const DESCRIPCION = 'd'.repeat(20_000);
const CAP = 8 * 1024 * 1024;
const READER = 'lector-como-el-notifier';

let nats: PrivateNatsServer;
let stack: ProcessStack;
let nc: NatsConnection;
let db: Knex;

beforeAll(async () => {
  nats = await startPrivateNatsServer();
  const limits = { NATS_STREAM_MAX_BYTES: String(CAP) };
  stack = await startProcessStack({
    label: 'f_limits',
    natsUrl: nats.url,
    env: { 'producto-svc': limits, 'bodega-svc': limits },
  });
  nc = await connectTestNats(nats.url);
  db = createDb(stack.databaseUrls['producto-svc'], { poolMax: 2 });
}, 120_000);

afterAll(async () => {
  await db?.destroy();
  await nc?.close();
  await stack?.close();
  await killAllServiceProcesses();
  await nats?.dispose();
});

test(`${PRODUCTOS} events of 20 KB against an 8 MiB stream: refused at the cap, kept in the outbox, all delivered once the cap is raised`, async () => {
  const { stream, prefix } = stack.namespace;
  const jsm = await jetstreamManager(nc);
  await waitFor(() => jsm.streams.info(stream), 'the services to create the stream');
  expect((await jsm.streams.info(stream)).config).toMatchObject({ max_bytes: CAP, discard: 'new' });
  // A consumer that has read nothing yet, as the notifier's are while it sends emails.
  await jsm.consumers.add(stream, {
    durable_name: READER,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    filter_subject: `${prefix}.>`,
  });

  const created = await stack.request('POST', '/api/bodegas', {
    body: { nombre: 'Bodega de descripciones largas', capacidad: PRODUCTOS },
  });
  expect(created.status).toBe(201);
  const bodegaId = Number(created.body.id);
  const ids = await seedProductos(db, { count: PRODUCTOS, bodegaId, descripcion: DESCRIPCION });
  const deleted = await stack.request('DELETE', `/api/bodegas/${bodegaId}?force=true`);
  expect(deleted.status).toBe(200);
  expect(deleted.body.productosAfectados).toBe(PRODUCTOS);

  // The stream fills and refuses; the relay keeps the rest and tries again.
  const full = await waitFor(
    async () => {
      const { state } = await jsm.streams.info(stream);
      const pending = await countPendingEvents(db);
      return state.bytes > CAP - 100_000 && pending > 0 && { state, pending };
    },
    'the stream to fill while events wait in the outbox',
    120_000,
  );
  process.stdout.write(
    `stream-limits: full at ${full.state.messages} messages / ${full.state.bytes} bytes, ${full.pending} events waiting in the outbox\n`,
  );
  expect(full.state.first_seq).toBe(1);
  const reader = await jsm.consumers.info(stream, READER);
  expect(reader.num_pending + reader.num_ack_pending).toBe(full.state.messages);
  // Later rounds fail too, and nothing leaves the stream.
  await new Promise((resolve) => setTimeout(resolve, 3000));
  expect((await jsm.streams.info(stream)).state.first_seq).toBe(1);
  expect(await countPendingEvents(db)).toBeGreaterThan(0);

  // An operator raises the cap (the provisioning Job, with natsStreamMaxBytes): the outbox publishes the rest.
  await jsm.streams.update(stream, { max_bytes: 256 * 1024 * 1024 });
  await waitFor(async () => (await countPendingEvents(db)) === 0, 'the outbox to publish every waiting event', 180_000);

  const consumer = await jetstream(nc).consumers.get(stream, READER);
  const seen: number[] = [];
  let last = 0;
  for (;;) {
    const batch = await consumer.fetch({ max_messages: 500, expires: 2000 });
    let got = 0;
    for await (const m of batch) {
      got++;
      expect(m.seq).toBeGreaterThan(last);
      last = m.seq;
      if (m.subject === `${prefix}.producto.actualizado`)
        seen.push(m.json<{ data: { productoId: number } }>().data.productoId);
      m.ack();
    }
    if (got === 0) break;
  }
  expect((await jsm.streams.info(stream)).state.first_seq).toBe(1);
  expect(seen).toHaveLength(PRODUCTOS);
  expect(seen).toEqual(ids);
}, 600_000);
