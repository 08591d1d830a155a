/**
 * NATS stopped for 60 s while writes keep arriving at the built producto-svc
 * over gRPC: every write succeeds (they only commit outbox rows), the relay
 * retries on its back-off rather than in a hot loop, and once the private
 * nats-server is back the backlog drains with each event in the stream once.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { waitFor } from '@inventario/testkit';
import { startOutboxFaultFixture, type OutboxFaultFixture } from './support/outbox-fixture';
import { killAllServiceProcesses, type LogLine } from './support/processes';

const OUTAGE_MS = 60_000;
const WRITERS = 4;
// The relay's documented back-off (docs/decisions.md): from the 250 ms poll interval, doubling, capped at 5 s.
const FIRST_BACKOFF_MS = 250;
const MAX_BACKOFF_MS = 5000;

/**
 * The most failed relay rounds that fit in `ms` when each failure is followed
 * by its back-off, plus the round under way when the window opened. A relay
 * that retried without backing off would exceed it many times over.
 */
function maxFailedRounds(ms: number): number {
  let rounds = 1;
  let elapsed = 0;
  for (let backoff = FIRST_BACKOFF_MS; elapsed + backoff <= ms; backoff = Math.min(MAX_BACKOFF_MS, backoff * 2)) {
    elapsed += backoff;
    rounds++;
  }
  return rounds;
}

const RELAY_FAILURES = new Set([
  'outbox relay failed; will retry',
  'outbox relay stuck; later events wait behind this row',
]);

interface WriteLoad {
  ok: number;
  failed: string[];
  stop(): Promise<void>;
}

/** `WRITERS` loops creating products one after another until stopped. */
function startWriteLoad(f: OutboxFaultFixture): WriteLoad {
  let running = true;
  const counts = { ok: 0, failed: [] as string[] };
  const writer = async (w: number) => {
    for (let i = 0; running; i++) {
      try {
        await f.api.create({ nombre: `Carga ${w}-${i}`, precio: '9.99', cantidadEnStock: i });
        counts.ok++;
      } catch (err) {
        counts.failed.push(err instanceof Error ? err.message : String(err));
      }
    }
  };
  const writers = Array.from({ length: WRITERS }, (_, w) => writer(w));
  return {
    get ok() {
      return counts.ok;
    },
    failed: counts.failed,
    stop() {
      running = false;
      return Promise.all(writers).then(() => undefined);
    },
  };
}

describe('NATS stopped for 60 s under write load', () => {
  let f: OutboxFaultFixture;

  beforeAll(async () => {
    f = await startOutboxFaultFixture('fault_nats');
  });

  afterAll(async () => {
    await killAllServiceProcesses();
    await f?.close();
  });

  it('accepts every write, backs off while NATS is down, then drains the backlog with each event once', async () => {
    const service = await f.startService();
    await f.api.create({ nombre: 'Antes del corte', precio: '1.00', cantidadEnStock: 1 });
    await waitFor(async () => (await f.pendingEvents()) === 0, 'events to flow before the outage', 30_000);

    const load = startWriteLoad(f);
    await sleep(2000);
    const linesBefore = service.lines.length;
    await f.nats.stop();
    const stoppedAt = Date.now();
    await sleep(OUTAGE_MS);
    const outageLines: LogLine[] = service.lines.slice(linesBefore);
    await f.nats.start();
    const outageMs = Date.now() - stoppedAt;
    await sleep(2000);
    await load.stop();

    expect(load.failed).toEqual([]);
    expect(load.ok).toBeGreaterThan(0);

    // The relay did fail and retry while NATS was down, on its back-off.
    const failures = outageLines.filter((l) => RELAY_FAILURES.has(l.msg));
    expect(failures.length).toBeGreaterThan(0);
    expect(failures.length).toBeLessThanOrEqual(maxFailedRounds(outageMs));
    expect(Math.max(...failures.map((l) => Number(l.retryInMs)))).toBe(MAX_BACKOFF_MS);

    await waitFor(async () => (await f.pendingEvents()) === 0, 'the backlog to drain', 300_000, 500);
    const outbox = await f.outboxEventIds();
    expect(outbox).toHaveLength(load.ok + 1);
    const stream = await f.streamEventIds();
    expect(stream).toHaveLength(outbox.length);
    expect(new Set(stream)).toEqual(new Set(outbox));
    expect(service.running()).toBe(true);
  });
});
