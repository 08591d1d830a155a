/**
 * The outbox's two crash windows, with the built producto-svc SIGKILLed in
 * each: after the write committed but before its event was published, and
 * after JetStream acknowledged the event but before the relay marked the
 * row. Either way the restarted service publishes what is left, and the
 * stream holds exactly one copy of each event.
 */
import { waitFor } from '@inventario/testkit';
import { startOutboxFaultFixture, type OutboxFaultFixture } from './support/outbox-fixture';
import { killAllServiceProcesses } from './support/processes';

const WRITES = 5;

async function createProductos(f: OutboxFaultFixture, label: string): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 0; i < WRITES; i++) {
    const res = await f.api.create({ nombre: `${label} ${i}`, precio: '1.50', cantidadEnStock: i });
    ids.push(res.producto!.id);
  }
  return ids;
}

/** Every outbox row is published and the stream holds each of their events exactly once. */
async function expectEachEventOnce(f: OutboxFaultFixture): Promise<void> {
  await waitFor(async () => (await f.pendingEvents()) === 0, 'the restarted relay to publish every row', 60_000);
  const outbox = await f.outboxEventIds();
  expect(outbox).toHaveLength(WRITES);
  expect(await f.streamEventIds()).toEqual(outbox);
}

afterAll(async () => {
  await killAllServiceProcesses();
});

describe('producto-svc killed after commit, before publish', () => {
  let f: OutboxFaultFixture;

  beforeAll(async () => {
    f = await startOutboxFaultFixture('fault_okill_a');
  });

  afterAll(async () => {
    await f?.close();
  });

  it('publishes the committed events once after the restart', async () => {
    // NATS is down, so the relay cannot publish what the writes commit.
    await f.nats.stop();
    await f.startService();
    await createProductos(f, 'Antes de publicar');
    expect(await f.pendingEvents()).toBe(WRITES);

    expect(await f.service().kill()).toMatchObject({ signal: 'SIGKILL' });
    await f.nats.start();
    await f.startService();
    await expectEachEventOnce(f);
  });
});

describe('relay killed after publish, before marking the rows', () => {
  let f: OutboxFaultFixture;

  beforeAll(async () => {
    f = await startOutboxFaultFixture('fault_okill_b');
  });

  afterAll(async () => {
    await f?.close();
  });

  it('re-publishes the unmarked rows after the restart, and JetStream drops the copies', async () => {
    // Written while NATS is down, so the relay's first round publishes all of
    // them in one batch, then holds the marking for ten minutes (fault hook).
    await f.nats.stop();
    const first = await f.startService({ relayMarkDelayMs: 600_000 });
    await createProductos(f, 'Publicado sin marcar');
    await f.nats.start();
    await first.logged('fault injection: the relay waits after each publish before marking the rows');

    await waitFor(async () => (await f.streamEventIds()).length === WRITES, 'the relay to publish the batch', 60_000);
    // Acknowledged by JetStream, not marked: the window the kill lands in.
    expect(await f.pendingEvents()).toBe(WRITES);
    expect(await first.kill()).toMatchObject({ signal: 'SIGKILL' });
    expect(await f.pendingEvents()).toBe(WRITES);

    await f.startService();
    await expectEachEventOnce(f);
  });
});
