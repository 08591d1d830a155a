import { setTimeout as sleep } from 'node:timers/promises';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { waitFor } from '@inventario/testkit';
import type { NatsConnection } from '@inventario/platform';
import type { BenchDb } from './bench-db';
import { idOf, requestJson } from './http-client';
import { productoBody, type Seed } from './seed';
import { percentile } from './stats';
import type { Stack } from './stack';

/** One event as the harness's own JetStream consumer saw it. */
interface SeenEvent {
  /** JetStream's store time (epoch ms): when the publish was acknowledged. */
  storedAt: number;
  /** When the harness received it (epoch ms). */
  observedAt: number;
  productoId?: number;
}

interface Observer {
  /** By event id (Nats-Msg-Id). */
  seen: Map<string, SeenEvent>;
  close(): Promise<void>;
}

/**
 * An ordered consumer on `subject` from the stream's current end: sees each
 * later message once, in stream order, however long its creation takes.
 * (A string filter: nats-server 2.9 knows one filter_subject, not a list.)
 */
async function observe(nc: NatsConnection, stream: string, subject: string): Promise<Observer> {
  const js = jetstream(nc);
  const { state } = await (await jetstreamManager(nc)).streams.info(stream);
  const consumer = await js.consumers.get(stream, { filter_subjects: subject, opt_start_seq: state.last_seq + 1 });
  const messages = await consumer.consume();
  const seen = new Map<string, SeenEvent>();
  const loop = (async () => {
    for await (const m of messages) {
      const observedAt = Date.now();
      const id = m.headers?.get('Nats-Msg-Id') ?? '';
      let productoId: number | undefined;
      try {
        const body = m.json<{ data?: { productoId?: unknown } }>();
        if (body.data?.productoId !== undefined) productoId = Number(body.data.productoId);
      } catch {
        // not JSON: the relay's filler rows
      }
      seen.set(id, {
        storedAt: Number(m.info.timestampNanos) / 1e6,
        observedAt,
        ...(productoId === undefined ? {} : { productoId }),
      });
    }
  })();
  return {
    seen,
    async close() {
      await messages.close();
      await loop.catch(() => undefined);
    },
  };
}

export interface EventFigures {
  writes: number;
  /** Writes that did not answer 201. */
  writeErrors: number;
  /** commit (outbox row written) -> stored in JetStream, ms. */
  outboxLagP50: number;
  outboxLagP99: number;
  /** commit -> received by the harness's consumer, ms. */
  observedLagP99: number;
  /**
   * 201 received -> stored in JetStream, ms (negative: stored before the
   * answer arrived). A lower bound of the outbox lag, as the outbox row's
   * time is an upper one: it is taken at the INSERT, before the COMMIT.
   */
  storedAfterAnswerP99: number;
  /** POST sent -> SMTP server answered 250, ms; NaN without a sink. */
  emailP50: number;
  emailP99: number;
  /** Emails that did not arrive within the wait. */
  emailsMissing: number;
}

/**
 * `rate` POSTs per second for `seconds`, each sent on its own schedule
 * (a slow answer does not delay the next write). Then waits for every
 * write's event in JetStream and, with a sink, its email, and reads each
 * event's commit time from the outbox row.
 */
export async function measureEvents(
  stack: Stack,
  nc: NatsConnection,
  db: BenchDb,
  seed: Seed,
  rate: number,
  seconds: number,
): Promise<EventFigures> {
  const observer = await observe(nc, stack.stream, `${stack.prefix}.producto.creado`);
  try {
    const sentAt = new Map<number, number>();
    const answeredAt = new Map<number, number>();
    let writeErrors = 0;
    const inFlight: Promise<void>[] = [];
    const start = Date.now();
    const total = Math.round(rate * seconds);
    for (let i = 0; i < total; i++) {
      const due = start + (i * 1000) / rate;
      const wait = due - Date.now();
      if (wait > 0) await sleep(wait);
      const sent = Date.now();
      inFlight.push(
        requestJson(
          stack.bffUrl,
          stack.auth,
          'POST',
          '/api/productos',
          productoBody('bench event', seed.bodegaIds),
        ).then(
          (res) => {
            if (res.status !== 201) return void writeErrors++;
            sentAt.set(idOf(res.body), sent);
            answeredAt.set(idOf(res.body), Date.now());
          },
          () => {
            writeErrors++;
          },
        ),
      );
    }
    await Promise.all(inFlight);
    const eventsOf = () =>
      [...observer.seen.entries()].filter(([, e]) => e.productoId !== undefined && sentAt.has(e.productoId));
    await waitFor(() => eventsOf().length >= sentAt.size, `${sentAt.size} producto.creado events`, 60_000).catch(
      () => undefined,
    );
    const events = eventsOf();
    const sink = stack.sink;
    if (sink)
      await waitFor(
        () => events.every(([id]) => sink.acceptedAt.has(id)),
        'the emails of the paced writes',
        120_000,
      ).catch(() => undefined);
    const commits = await db.commitTimes(events.map(([id]) => id));

    const outboxLag: number[] = [];
    const observedLag: number[] = [];
    const afterAnswer: number[] = [];
    const email: number[] = [];
    let emailsMissing = 0;
    for (const [id, e] of events) {
      const committed = commits.get(id);
      if (committed !== undefined) {
        outboxLag.push(e.storedAt - committed);
        observedLag.push(e.observedAt - committed);
      }
      const accepted = sink?.acceptedAt.get(id);
      const sent = sentAt.get(e.productoId as number) as number;
      afterAnswer.push(e.storedAt - (answeredAt.get(e.productoId as number) as number));
      if (accepted !== undefined) email.push(accepted - sent);
      else if (sink) emailsMissing++;
    }
    return {
      writes: total,
      writeErrors: writeErrors + (sentAt.size - events.length),
      outboxLagP50: percentile(outboxLag, 0.5),
      outboxLagP99: percentile(outboxLag, 0.99),
      observedLagP99: percentile(observedLag, 0.99),
      storedAfterAnswerP99: percentile(afterAnswer, 0.99),
      emailP50: percentile(email, 0.5),
      emailP99: percentile(email, 0.99),
      emailsMissing,
    };
  } finally {
    await observer.close();
  }
}

/**
 * The relay's publishing rate: `count` rows committed into the outbox at
 * once (on a subject the stream captures and nobody consumes), timed from
 * the first to the last JetStream store time. Events/s of the relay alone,
 * with no write path in front of it.
 */
export async function measureRelay(stack: Stack, nc: NatsConnection, db: BenchDb, count: number): Promise<number> {
  const subject = `${stack.prefix}.bench.relay`;
  const observer = await observe(nc, stack.stream, subject);
  try {
    const ids = await db.fillOutbox(subject, count);
    await waitFor(() => ids.every((id) => observer.seen.has(id)), `${count} relay events`, 120_000);
    const stored = ids.map((id) => (observer.seen.get(id) as SeenEvent).storedAt);
    const spanMs = Math.max(...stored) - Math.min(...stored);
    return spanMs > 0 ? ((count - 1) * 1000) / spanMs : Number.NaN;
  } finally {
    await observer.close();
  }
}
