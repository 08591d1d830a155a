/**
 * ensureStream runs at every start of every replica: it must create the
 * stream once, leave an existing one working, and never narrow what an
 * operator configured.
 */
import { jetstreamManager } from '@nats-io/jetstream';
import { nanos, type NatsConnection } from '@nats-io/transport-node';
import { jetstream } from '@nats-io/jetstream';
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

  it('keeps the limits an existing stream has when none are given', async () => {
    const jsm = await jetstreamManager(nc);
    await jsm.streams.update(ns.stream, { max_age: nanos(3 * 3600_000) });
    await ensureStream(nc, { name: ns.stream, subjects: [`${ns.prefix}.>`] });
    expect((await config()).max_age).toBe(nanos(3 * 3600_000));
  });
});

describe('ensureStream with limits (NATS_STREAM_MAX_AGE_HOURS, NATS_STREAM_MAX_BYTES)', () => {
  const fresh = testEventNamespace();
  const old = testEventNamespace();
  const limits = { maxAgeMs: 720 * 3600_000, maxBytes: 8 * 1024 * 1024 };

  afterAll(async () => {
    await deleteStream(nc, fresh.stream);
    await deleteStream(nc, old.stream);
  });

  async function configOf(stream: string) {
    return (await (await jetstreamManager(nc)).streams.info(stream)).config;
  }

  it('creates a new stream with them', async () => {
    await ensureStream(nc, { name: fresh.stream, subjects: [`${fresh.prefix}.>`], limits });
    expect(await configOf(fresh.stream)).toMatchObject({
      max_age: nanos(limits.maxAgeMs),
      max_bytes: limits.maxBytes,
      discard: 'old',
      duplicate_window: nanos(5 * 60_000),
    });
  });

  it('sets them on an existing stream made without limits, keeping its messages and subjects', async () => {
    // As a release before the limits created it.
    await ensureStream(nc, { name: old.stream, subjects: [`${old.prefix}.>`] });
    expect(await configOf(old.stream)).toMatchObject({ max_age: 0, max_bytes: -1 });
    await jetstream(nc).publish(`${old.prefix}.producto.creado`, 'kept');

    await ensureStream(nc, { name: old.stream, subjects: [`${old.prefix}.>`], limits });

    const jsm = await jetstreamManager(nc);
    const info = await jsm.streams.info(old.stream);
    expect(info.config).toMatchObject({ subjects: [`${old.prefix}.>`], max_age: nanos(limits.maxAgeMs), max_bytes: limits.maxBytes });
    expect(info.state.messages).toBe(1);
  });

  it('is idempotent: applying the same limits again leaves the stream as it is', async () => {
    const before = await configOf(old.stream);
    await ensureStream(nc, { name: old.stream, subjects: [`${old.prefix}.>`], limits });
    expect(await configOf(old.stream)).toEqual(before);
  });

  it('follows a changed configuration, 0 meaning no limit', async () => {
    await ensureStream(nc, { name: old.stream, subjects: [`${old.prefix}.>`], limits: { maxAgeMs: 0, maxBytes: 0 } });
    expect(await configOf(old.stream)).toMatchObject({ max_age: 0, max_bytes: -1 });
    await ensureStream(nc, { name: old.stream, subjects: [`${old.prefix}.>`], limits: { maxAgeMs: 2 * 3600_000, maxBytes: 2 * 1024 * 1024 } });
    expect(await configOf(old.stream)).toMatchObject({ max_age: nanos(2 * 3600_000), max_bytes: 2 * 1024 * 1024 });
  });

  it('shortens a de-duplication window longer than the age limit, which JetStream would refuse', async () => {
    await ensureStream(nc, { name: old.stream, subjects: [`${old.prefix}.>`], limits: { maxAgeMs: 0, maxBytes: 0 } });
    const jsm = await jetstreamManager(nc);
    await jsm.streams.update(old.stream, { duplicate_window: nanos(3 * 3600_000) });
    await ensureStream(nc, { name: old.stream, subjects: [`${old.prefix}.>`], limits: { maxAgeMs: 3600_000, maxBytes: 0 } });
    expect(await configOf(old.stream)).toMatchObject({ max_age: nanos(3600_000), duplicate_window: nanos(3600_000) });
  });
});
