import { Kvm } from '@nats-io/kv';
import { nanos } from '@nats-io/transport-node';
import { connectTestNats, deleteStream, uniqueName } from '@inventario/testkit';
import type { NatsConnection } from '@nats-io/transport-node';
import { openSentRegistry, SENT_TTL_MS, type SentRegistry } from '../src/events/sent-registry';

// The sent registry on a real JetStream KV bucket: one email per event id,
// across replicas, redeliveries and crashes.

const STALE_AFTER_MS = 5000;
let nc: NatsConnection;
let bucket: string;
let registry: SentRegistry;
let counter = 0;

/** A fresh event id per test. */
const eventId = () => `evento-${Date.now().toString(36)}-${++counter}`;
const message = (seq: number) => ({ stream: 'INVENTARIO', seq });

beforeAll(async () => {
  nc = await connectTestNats();
  bucket = uniqueName('sent_registry');
  registry = await openSentRegistry(nc, { bucket, staleAfterMs: STALE_AFTER_MS });
});

afterAll(async () => {
  await deleteStream(nc, `KV_${bucket}`);
  await nc.close();
});

describe('sent registry', () => {
  it('creates its bucket keeping one value per key for 7 days', async () => {
    const status = await (await new Kvm(nc).open(bucket)).status();
    expect(status.ttl).toBe(SENT_TTL_MS);
    expect(status.history).toBe(1);
    expect(status.streamInfo.config.max_age).toBe(nanos(SENT_TTL_MS));
  });

  it('claims an event not seen before, and reports it sent once marked', async () => {
    const id = eventId();
    const first = await registry.claim(id, message(1));
    expect(first).toMatchObject({ status: 'claimed' });
    if (first.status !== 'claimed') return;
    expect(first.takeover).toBeUndefined();

    await registry.markSent(first.claim, { messageId: `<${id}@inventario>` });
    expect(await registry.claim(id, message(1))).toMatchObject({ status: 'sent' });
    expect(await registry.claim(id, message(2))).toMatchObject({ status: 'sent' });
  });

  it('lets exactly one of two replicas claiming the same event at once win', async () => {
    const id = eventId();
    const other = await openSentRegistry(nc, { bucket, staleAfterMs: STALE_AFTER_MS });
    const results = await Promise.all([registry.claim(id, message(10)), other.claim(id, message(11))]);
    expect(results.map((r) => r.status).sort()).toEqual(['busy', 'claimed']);
    const busy = results.find((r) => r.status === 'busy');
    expect(busy).toMatchObject({ retryInMs: expect.any(Number), sameMessage: false });
    if (busy?.status === 'busy') expect(busy.retryInMs).toBeLessThanOrEqual(STALE_AFTER_MS);
  });

  it('keeps a fresh claim from a redelivery of the same stream message: ack_wait may have run out while its holder still sends', async () => {
    const id = eventId();
    await registry.claim(id, message(20));
    expect(await registry.claim(id, message(20))).toMatchObject({ status: 'busy', sameMessage: true });
  });

  it('gives a delivery attempt back its own claim when it claims again after the answer was lost (same token), and keeps other attempts of the message out', async () => {
    const id = eventId();
    const first = await registry.claim(id, { ...message(25), token: 'attempt-a' });
    if (first.status !== 'claimed') throw new Error(`not claimed: ${first.status}`);
    // The same attempt claiming again: its claim, at the revision the bucket has, usable to refresh and mark sent.
    const again = await registry.claim(id, { ...message(25), token: 'attempt-a' });
    expect(again).toMatchObject({ status: 'claimed', claim: { revision: first.claim.revision } });
    // Another attempt of the same message (a redelivery elsewhere) still finds it busy.
    expect(await registry.claim(id, { ...message(25), token: 'attempt-b' })).toMatchObject({
      status: 'busy',
      sameMessage: true,
    });
    if (again.status !== 'claimed') return;
    expect(await registry.refresh(again.claim)).toBeDefined();
  });

  it('claims a key again after it was released (a delete marker is its latest revision)', async () => {
    const id = eventId();
    const first = await registry.claim(id, message(27));
    if (first.status !== 'claimed') throw new Error(`not claimed: ${first.status}`);
    await registry.release(first.claim);
    expect(await registry.lookup(id)).toBeUndefined();
    expect(await registry.claim(id, message(28))).toMatchObject({ status: 'claimed' });
  });

  it('lets any delivery, of the same message or another, take over a claim not refreshed within ack_wait (its holder died)', async () => {
    const id = eventId();
    await registry.claim(id, message(30));
    expect(await registry.claim(id, message(31))).toMatchObject({ status: 'busy' });

    const later = await openSentRegistry(nc, {
      bucket,
      staleAfterMs: STALE_AFTER_MS,
      now: () => Date.now() + STALE_AFTER_MS + 1000,
    });
    expect(await later.claim(id, message(30))).toMatchObject({ status: 'claimed', takeover: 'stale' });
  });

  it('counts the age of a claim from its last refresh, not from when it was taken', async () => {
    const id = eventId();
    const first = await registry.claim(id, message(60));
    if (first.status !== 'claimed') throw new Error(`expected a claim, got ${first.status}`);
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(await registry.refresh(first.claim)).toMatchObject({ key: first.claim.key, revision: expect.any(Number) });

    // A clock STALE_AFTER_MS - 2 s ahead: the claim (2.5 s older) looks stale, the refresh does not.
    const later = await openSentRegistry(nc, {
      bucket,
      staleAfterMs: STALE_AFTER_MS,
      now: () => Date.now() + STALE_AFTER_MS - 2000,
    });
    expect(await later.claim(id, message(61))).toMatchObject({ status: 'busy' });
    expect(await later.lookup(id)).toEqual({ state: 'sending' });
  });

  it('tells a holder its claim is gone once another delivery took it over', async () => {
    const id = eventId();
    const first = await registry.claim(id, message(70));
    if (first.status !== 'claimed') throw new Error(`expected a claim, got ${first.status}`);
    const later = await openSentRegistry(nc, {
      bucket,
      staleAfterMs: STALE_AFTER_MS,
      now: () => Date.now() + STALE_AFTER_MS + 1000,
    });
    expect(await later.claim(id, message(71))).toMatchObject({ status: 'claimed', takeover: 'stale' });

    expect(await registry.refresh(first.claim)).toBeUndefined();
  });

  it('looks an event up without claiming it: sent, being sent, or unknown (a stale claim counts as unknown)', async () => {
    const sentId = eventId();
    const claimed = await registry.claim(sentId, message(80));
    if (claimed.status !== 'claimed') throw new Error(`expected a claim, got ${claimed.status}`);
    expect(await registry.lookup(sentId)).toEqual({ state: 'sending' });
    await registry.markSent(claimed.claim, { messageId: `<${sentId}@inventario>` });
    expect(await registry.lookup(sentId)).toEqual({ state: 'sent', sentAt: expect.any(String) });

    const abandoned = eventId();
    await registry.claim(abandoned, message(81));
    const later = await openSentRegistry(nc, {
      bucket,
      staleAfterMs: STALE_AFTER_MS,
      now: () => Date.now() + STALE_AFTER_MS + 1000,
    });
    expect(await later.lookup(abandoned)).toBeUndefined();
    expect(await registry.lookup(eventId())).toBeUndefined();
  });

  it('frees the event after a failed send, so the next delivery claims it again', async () => {
    const id = eventId();
    const first = await registry.claim(id, message(40));
    if (first.status !== 'claimed') throw new Error(`expected a claim, got ${first.status}`);
    await registry.release(first.claim);
    expect(await registry.claim(id, message(41))).toMatchObject({ status: 'claimed' });
  });

  it('leaves a claim alone that another delivery took over meanwhile', async () => {
    const id = eventId();
    const stale = await registry.claim(id, message(50));
    if (stale.status !== 'claimed') throw new Error(`expected a claim, got ${stale.status}`);
    const later = await openSentRegistry(nc, {
      bucket,
      staleAfterMs: STALE_AFTER_MS,
      now: () => Date.now() + STALE_AFTER_MS + 1000,
    });
    expect(await later.claim(id, message(50))).toMatchObject({ status: 'claimed', takeover: 'stale' });

    await registry.release(stale.claim);
    expect(await registry.claim(id, message(51))).toMatchObject({ status: 'busy' });
  });
});
