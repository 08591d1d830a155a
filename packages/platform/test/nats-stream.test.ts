/**
 * ensureStream runs at every start of every replica: it must create the
 * stream once, leave an existing one working, and never narrow what an
 * operator configured.
 */
import { jetstreamManager } from '@nats-io/jetstream';
import { nanos, type NatsConnection } from '@nats-io/transport-node';
import { ensureStream } from '@inventario/platform';
import { connectTestNats, deleteStream, testEventNamespace } from '@inventario/testkit';

let nc: NatsConnection;
const ns = testEventNamespace();

beforeAll(async () => {
  nc = await connectTestNats();
});

afterAll(async () => {
  await deleteStream(nc, ns.stream);
  await nc.close();
});

async function config() {
  const jsm = await jetstreamManager(nc);
  return (await jsm.streams.info(ns.stream)).config;
}

describe('ensureStream', () => {
  it('creates the stream on file storage with the 5-minute de-duplication window', async () => {
    await ensureStream(nc, { name: ns.stream, subjects: [`${ns.prefix}.>`] });
    const c = await config();
    expect(c.subjects).toEqual([`${ns.prefix}.>`]);
    expect(c.storage).toBe('file');
    expect(c.duplicate_window).toBe(nanos(5 * 60_000));
  });

  it('is idempotent: a second call changes nothing', async () => {
    const before = await config();
    await ensureStream(nc, { name: ns.stream, subjects: [`${ns.prefix}.>`] });
    expect(await config()).toEqual(before);
  });

  it('keeps subjects and a wider window that an operator added', async () => {
    const jsm = await jetstreamManager(nc);
    await jsm.streams.update(ns.stream, { subjects: [`${ns.prefix}.>`, `${ns.prefix}_audit.>`], duplicate_window: nanos(3600_000) });

    await ensureStream(nc, { name: ns.stream, subjects: [`${ns.prefix}.>`] });

    const c = await config();
    expect(c.subjects).toEqual([`${ns.prefix}.>`, `${ns.prefix}_audit.>`]);
    expect(c.duplicate_window).toBe(nanos(3600_000));
  });

  it('widens a narrower window to ours', async () => {
    const jsm = await jetstreamManager(nc);
    await jsm.streams.update(ns.stream, { duplicate_window: nanos(10_000) });
    await ensureStream(nc, { name: ns.stream, subjects: [`${ns.prefix}.>`] });
    expect((await config()).duplicate_window).toBe(nanos(5 * 60_000));
  });
});
