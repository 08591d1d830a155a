/**
 * ensureStream runs at every start of every replica: it must create the
 * stream once, leave an existing one working, and never narrow what an
 * operator configured.
 */
import { DiscardPolicy, jetstreamManager, StorageType } from '@nats-io/jetstream';
import { connect, nanos, type NatsConnection } from '@nats-io/transport-node';
import { jetstream } from '@nats-io/jetstream';
import { ensureStream, StreamNotProvisionedError } from '@inventario/platform';
import {
  connectTestNats,
  deleteStream,
  startPrivateNatsServer,
  testEventNamespace,
  type PrivateNatsServer,
} from '@inventario/testkit';

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
    await jsm.streams.update(ns.stream, {
      subjects: [`${ns.prefix}.>`, `${ns.prefix}_audit.>`],
      duplicate_window: nanos(3600_000),
    });

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

describe('ensureStream with NATS_STREAM_REPLICAS', () => {
  const own = testEventNamespace();
  afterAll(() => deleteStream(nc, own.stream));

  it('creates the stream with the replicas asked for, and finds nothing to change when asked again', async () => {
    expect(await ensureStream(nc, { name: own.stream, subjects: [`${own.prefix}.>`], replicas: 1 })).toEqual({
      outcome: 'created',
    });
    expect((await (await jetstreamManager(nc)).streams.info(own.stream)).config.num_replicas).toBe(1);
    expect(await ensureStream(nc, { name: own.stream, subjects: [`${own.prefix}.>`], replicas: 1 })).toEqual({
      outcome: 'unchanged',
    });
  });

  it('updates an existing stream whose replicas differ, once', async () => {
    // A lone nats-server records the setting and keeps its one copy; three real copies need a
    // three-node cluster: test/faults/nats-cluster.test.ts runs one.
    expect(await ensureStream(nc, { name: own.stream, subjects: [`${own.prefix}.>`], replicas: 3 })).toEqual({
      outcome: 'updated',
    });
    expect((await (await jetstreamManager(nc)).streams.info(own.stream)).config.num_replicas).toBe(3);
    expect(await ensureStream(nc, { name: own.stream, subjects: [`${own.prefix}.>`], replicas: 3 })).toEqual({
      outcome: 'unchanged',
    });
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
      // Full, it refuses new messages: the oldest may not have been read yet.
      discard: 'new',
      duplicate_window: nanos(5 * 60_000),
    });
  });

  it('sets them on an existing stream made without limits, discarding the oldest, keeping its messages and subjects', async () => {
    // As a release before the limits created it.
    const jsm = await jetstreamManager(nc);
    await jsm.streams.add({
      name: old.stream,
      subjects: [`${old.prefix}.>`],
      storage: StorageType.File,
      discard: DiscardPolicy.Old,
    });
    await jetstream(nc).publish(`${old.prefix}.producto.creado`, 'kept');

    await ensureStream(nc, { name: old.stream, subjects: [`${old.prefix}.>`], limits });

    const info = await jsm.streams.info(old.stream);
    expect(info.config).toMatchObject({
      subjects: [`${old.prefix}.>`],
      max_age: nanos(limits.maxAgeMs),
      max_bytes: limits.maxBytes,
      discard: 'new',
    });
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
    await ensureStream(nc, {
      name: old.stream,
      subjects: [`${old.prefix}.>`],
      limits: { maxAgeMs: 2 * 3600_000, maxBytes: 2 * 1024 * 1024 },
    });
    expect(await configOf(old.stream)).toMatchObject({ max_age: nanos(2 * 3600_000), max_bytes: 2 * 1024 * 1024 });
  });

  it('shortens a de-duplication window longer than the age limit, which JetStream would refuse', async () => {
    await ensureStream(nc, { name: old.stream, subjects: [`${old.prefix}.>`], limits: { maxAgeMs: 0, maxBytes: 0 } });
    const jsm = await jetstreamManager(nc);
    await jsm.streams.update(old.stream, { duplicate_window: nanos(3 * 3600_000) });
    await ensureStream(nc, {
      name: old.stream,
      subjects: [`${old.prefix}.>`],
      limits: { maxAgeMs: 3600_000, maxBytes: 0 },
    });
    expect(await configOf(old.stream)).toMatchObject({ max_age: nanos(3600_000), duplicate_window: nanos(3600_000) });
  });
});

describe("ensureStream as a NATS user that may only read the stream (the chart's services)", () => {
  const ns = testEventNamespace();
  let server: PrivateNatsServer;
  let admin: NatsConnection;
  let reader: NatsConnection;

  beforeAll(async () => {
    const reads = JSON.stringify(['$JS.API.INFO', `$JS.API.STREAM.INFO.${ns.stream}`]);
    server = await startPrivateNatsServer({
      config: `authorization: { users: [ { user: admin, password: a }, { user: reader, password: r, permissions: { publish: ${reads}, subscribe: "_INBOX.>" } } ] }`,
    });
    admin = await connect({ servers: server.url, user: 'admin', pass: 'a', reconnect: false });
    reader = await connect({ servers: server.url, user: 'reader', pass: 'r', reconnect: false });
  });

  afterAll(async () => {
    await reader?.close();
    await admin?.close();
    await server?.dispose();
  });

  const spec = {
    name: ns.stream,
    subjects: [`${ns.prefix}.>`],
    limits: { maxAgeMs: 3600_000, maxBytes: 2 * 1024 * 1024 },
  };

  it('refuses to go on while the stream does not exist: StreamNotProvisionedError, which start-up retries', async () => {
    await expect(ensureStream(reader, spec)).rejects.toThrow(StreamNotProvisionedError);
  });

  it('uses an existing stream that differs as it is, naming what differs, and changes nothing', async () => {
    await ensureStream(admin, { ...spec, limits: { maxAgeMs: 7200_000, maxBytes: 4 * 1024 * 1024 } });
    const before = (await (await jetstreamManager(admin)).streams.info(ns.stream)).config;
    expect(await ensureStream(reader, spec)).toEqual({
      outcome: 'not-permitted',
      differences: ['max_age', 'max_bytes'],
    });
    expect((await (await jetstreamManager(admin)).streams.info(ns.stream)).config).toEqual(before);
  });

  it('changes nothing and needs no right beyond its info when the stream is as configured', async () => {
    await ensureStream(admin, spec);
    expect(await ensureStream(reader, spec)).toEqual({ outcome: 'unchanged' });
  });
});
