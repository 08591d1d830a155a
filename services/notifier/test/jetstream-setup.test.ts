/**
 * The notifier's JetStream set-up (events/jetstream-setup.ts): the dead
 * letters get a stream of their own, apart from the events and their limits,
 * which keeps them until replayed, refuses (never drops) when full,
 * remembers their ids as long as the events' stream keeps the advisories
 * that could write them again, and takes over the letters an older release
 * left among the events.
 */
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { headers as natsHeaders, nanos, type NatsConnection } from '@nats-io/transport-node';
import { createLogger } from '@inventario/platform';
import { connectTestNats, deleteStream, testEventNamespace, uniqueName } from '@inventario/testkit';
import { deadLetterStreamName } from '../src/events/dead-letter';
import { setUpJetStream, setUpNotifierJetStream, type JetStreamSettings } from '../src/events/jetstream-setup';

let nc: NatsConnection;
const ns = testEventNamespace();
const settings: JetStreamSettings = {
  stream: ns.stream,
  prefix: ns.prefix,
  limits: { maxAgeMs: 720 * 3600_000, maxBytes: 8 * 1024 * 1024 },
  deadLetterMaxBytes: 2 * 1024 * 1024,
  sentBucket: uniqueName('sent'),
  replicas: 1,
};
const DLQ = deadLetterStreamName(ns.stream);

beforeAll(async () => {
  nc = await connectTestNats();
});

afterAll(async () => {
  await deleteStream(nc, DLQ);
  await deleteStream(nc, ns.stream);
  await deleteStream(nc, `KV_${settings.sentBucket}`);
  await nc.close();
});

async function letters(): Promise<
  { seq: number; subject: string; id: string | undefined; reason: string | undefined }[]
> {
  const jsm = await jetstreamManager(nc);
  const info = await jsm.streams.info(DLQ);
  const out: { seq: number; subject: string; id: string | undefined; reason: string | undefined }[] = [];
  for (let seq = info.state.first_seq; seq <= info.state.last_seq && info.state.messages > 0; seq++) {
    const m = await jsm.streams.getMessage(DLQ, { seq }).catch(() => null);
    if (m)
      out.push({
        seq,
        subject: m.subject,
        id: m.header?.get('Nats-Msg-Id') || undefined,
        reason: m.header?.get('Inventario-Dead-Letter-Reason') || undefined,
      });
  }
  return out;
}

function publishLetter(msgID: string, body = '{"letter":true}', type = 'producto.creado') {
  return jetstream(nc).publish(`${ns.prefix}_dlq.${type}`, body, { msgID, headers: natsHeaders() });
}

it('creates the events stream, the dead letters stream (no age limit, discard new) and the bucket; a repeat changes nothing', async () => {
  expect(await setUpJetStream(nc, settings)).toEqual({
    events: { outcome: 'created' },
    deadLetters: { outcome: 'created' },
  });
  const jsm = await jetstreamManager(nc);
  expect((await jsm.streams.info(DLQ)).config).toMatchObject({
    subjects: [`${ns.prefix}_dlq.>`],
    max_age: 0,
    max_bytes: 2 * 1024 * 1024,
    discard: 'new',
    // A letter's id is remembered as long as the events' stream keeps the advisory that could write it again.
    duplicate_window: nanos(720 * 3600_000),
  });
  // The events' stream does not capture the letters' root.
  expect((await jsm.streams.info(ns.stream)).config.subjects).not.toContain(`${ns.prefix}_dlq.>`);
  await jsm.streams.info(`KV_${settings.sentBucket}`);
  expect(await setUpJetStream(nc, settings)).toEqual({
    events: { outcome: 'unchanged' },
    deadLetters: { outcome: 'unchanged' },
  });
});

it('raises both streams and the bucket to NATS_STREAM_REPLICAS when it changes (the provisioning of a NATS grown to a cluster), once', async () => {
  // A lone nats-server records the setting and keeps one copy; test/faults/nats-cluster.test.ts runs three nodes.
  const jsm = await jetstreamManager(nc);
  const replicasOf = async () =>
    Promise.all(
      [ns.stream, DLQ, `KV_${settings.sentBucket}`].map(
        async (name) => (await jsm.streams.info(name)).config.num_replicas,
      ),
    );
  await setUpJetStream(nc, settings);
  expect(await replicasOf()).toEqual([1, 1, 1]);
  expect(await setUpJetStream(nc, { ...settings, replicas: 3 })).toEqual({
    events: { outcome: 'updated' },
    deadLetters: { outcome: 'updated' },
  });
  expect(await replicasOf()).toEqual([3, 3, 3]);
  expect(await setUpJetStream(nc, { ...settings, replicas: 3 })).toEqual({
    events: { outcome: 'unchanged' },
    deadLetters: { outcome: 'unchanged' },
  });
  // Back to one, so the tests below see the settings they were written for.
  await setUpJetStream(nc, settings);
  expect(await replicasOf()).toEqual([1, 1, 1]);
});

it('keeps a letter whatever happens to the events (purged, as the runbook of a full stream does), and refuses a letter written again, also once replayed and deleted', async () => {
  await publishLetter('dlq:kept:1');
  const jsm = await jetstreamManager(nc);
  await jetstream(nc).publish(`${ns.prefix}.producto.creado`, '{}');
  await jsm.streams.purge(ns.stream);
  expect((await letters()).map((l) => l.id)).toEqual(['dlq:kept:1']);

  const again = await publishLetter('dlq:again:7');
  await jsm.streams.deleteMessage(DLQ, again.seq);
  expect((await publishLetter('dlq:again:7')).duplicate).toBe(true);
  expect((await letters()).map((l) => l.id)).toEqual(['dlq:kept:1']);
});

it('refuses a letter when full instead of dropping one, and takes it once there is room', async () => {
  const big = 'x'.repeat(500 * 1024);
  const ids = Array.from({ length: 5 }, (_, i) => `dlq:big:${i}`);
  const stored: string[] = [];
  for (const id of ids) {
    try {
      await publishLetter(id, big, 'bodega.creada');
      stored.push(id);
    } catch (err) {
      expect(String(err)).toMatch(/maximum bytes exceeded/);
    }
  }
  // 2 MiB hold four of them next to the first letter; the fifth is refused, and the notifier keeps its event.
  expect(stored).toEqual(ids.slice(0, 4));
  expect((await letters()).map((l) => l.id)).toEqual(['dlq:kept:1', ...ids.slice(0, 4)]);

  // A replay deletes a letter: the refused one is taken.
  const jsm = await jetstreamManager(nc);
  await jsm.streams.deleteMessage(DLQ, (await letters())[1]?.seq ?? 0);
  await publishLetter('dlq:big:4', big, 'bodega.creada');
  expect((await letters()).map((l) => l.id)).toEqual(['dlq:kept:1', ...ids.slice(1)]);
});

it("copies the letters an older release left in the events' stream once, subject on the letters' root, headers and body as they were", async () => {
  const jsm = await jetstreamManager(nc);
  for (const { seq } of await letters()) await jsm.streams.deleteMessage(DLQ, seq);
  const h = natsHeaders();
  h.set('Inventario-Dead-Letter-Reason', 'SMTP 550');
  await jetstream(nc).publish(`${ns.prefix}.dlq.producto.eliminado`, '{"old":1}', { msgID: 'dlq:OLD:41', headers: h });
  await jetstream(nc).publish(`${ns.prefix}.producto.eliminado`, '{"event":1}');
  await jetstream(nc).publish(`${ns.prefix}.dlq.bodega.creada`, '{"old":2}', { msgID: 'dlq:OLD:42' });

  const logger = createLogger('notifier', 'silent');
  await setUpNotifierJetStream(nc, settings, logger);
  const copied = await letters();
  expect(copied.map(({ subject, id, reason }) => ({ subject, id, reason }))).toEqual([
    { subject: `${ns.prefix}_dlq.producto.eliminado`, id: 'dlq:OLD:41', reason: 'SMTP 550' },
    { subject: `${ns.prefix}_dlq.bodega.creada`, id: 'dlq:OLD:42', reason: undefined },
  ]);
  expect((await jsm.streams.getMessage(DLQ, { seq: copied[0]?.seq ?? 0 }))?.string()).toBe('{"old":1}');

  // Every start copies again: the repeats are dropped, also of a letter replayed (deleted) since.
  await jsm.streams.deleteMessage(DLQ, copied[0]?.seq ?? 0);
  await setUpNotifierJetStream(nc, settings, logger);
  expect((await letters()).map((l) => l.id)).toEqual(['dlq:OLD:42']);
});
