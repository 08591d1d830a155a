import type { ConsumerMessages, JetStreamClient, JsMsg } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { inConsumeSpan, retrying, type Logger } from '@inventario/platform';
import type { ConcurrencyLimit } from './concurrency-limit';
import { startHeartbeat, type MessageHeartbeat } from './message-heartbeat';

/**
 * Consumes one durable consumer for as long as the notifier runs, and keeps
 * doing so when the consumer or its stream is deleted underneath it: the
 * client then only reports it in the consume status (at once when the
 * server tells the open pull, else after two missed heartbeats, 30 s) and
 * would wait for messages that never come. JetStream's consumer-deleted and
 * stream-deleted advisories tell at once. On any of these it logs at error level,
 * re-creates the consumer (the caller's `recreate`, the same ensureConsumer
 * as at start) with back-off until that works (a deleted stream must come
 * back first: the services create it at start) and consumes again.
 */

export interface ConsumerRunnerOptions {
  nc: NatsConnection;
  js: JetStreamClient;
  stream: string;
  /** The durable consumer's name. */
  consumer: string;
  /** Makes sure the durable consumer exists with our settings (ensureConsumer). */
  recreate(): Promise<void>;
  /**
   * Handles one message and settles it (ack, nak or term), unless another
   * process holds it; never rejects. `heartbeat` runs until it resolves.
   */
  handle(msg: JsMsg, heartbeat: MessageHeartbeat): Promise<unknown>;
  /** Shared by all consumers: bounds the emails in flight overall. */
  limit: ConcurrencyLimit;
  /** Milliseconds between heartbeats of a message this process holds (ack_wait / 3). */
  heartbeatMs: number;
  /**
   * Stream messages this process holds, over all consumers (`<stream>:<seq>`),
   * from the pull until the ack, nak or term.
   */
  held: Set<string>;
  /** Deliveries under way over all consumers, awaited at stop. */
  inFlight: Set<Promise<unknown>>;
  logger: Logger;
}

export interface ConsumerRunner {
  /** Stops pulling (and any re-creation under way); naks what was pulled but not started. */
  stop(): Promise<void>;
}

/** One `consume()` of the consumer. */
interface Session {
  /** Resolves with the reason once the consumer needs re-creating; never while all is well. */
  trouble: Promise<string>;
  /** Stops pulling; resolves once the message loop ended. */
  close(): Promise<void>;
}

/** Never settles: a race against it is decided by the other side. */
const never = new Promise<never>(() => undefined);

/** What the runner's pieces share: its options, its logger, the current session, and whether stop() was called. */
interface Running {
  options: ConsumerRunnerOptions;
  log: Logger;
  stopping: boolean;
  session?: Session;
}

export async function startConsumerRunner(options: ConsumerRunnerOptions): Promise<ConsumerRunner> {
  const run: Running = { options, log: options.logger.child({ consumer: options.consumer }), stopping: false };
  const abort = new AbortController();
  run.session = await open(run);
  const supervision = supervise(run, abort.signal);
  return {
    async stop() {
      run.stopping = true;
      abort.abort();
      await run.session?.close();
      await supervision;
    },
  };
}

async function handleMessages(
  run: Running,
  { messages, state }: { messages: ConsumerMessages; state: { waitingForSlot: boolean } },
): Promise<void> {
  const { options, log } = run;
  const { limit, held, inFlight } = options;
  for await (const msg of messages) {
    const key = `${msg.info.stream}:${msg.seq}`;
    if (held.has(key)) {
      // ack_wait ran out although the heartbeat should have kept it ours
      // (e.g. NATS was unreachable for a while): the first delivery still
      // acks or naks it, by stream sequence. Handling it too would send twice.
      log.warn(
        { streamSeq: msg.seq, deliveryCount: msg.info.deliveryCount },
        'redelivery of a message this process still holds; ignored',
      );
      continue;
    }
    held.add(key);
    const heartbeat = startHeartbeat(msg, options.heartbeatMs, log);
    const settled = () => {
      heartbeat.stop();
      held.delete(key);
    };
    const giveBack = (m: JsMsg) => {
      // Pulled but not started: another replica gets it at once.
      m.nak();
      settled();
    };
    if (run.stopping) {
      giveBack(msg);
      continue;
    }
    state.waitingForSlot = true;
    const release = await limit.acquire();
    state.waitingForSlot = false;
    if (run.stopping) {
      release();
      giveBack(msg);
      continue;
    }
    // In the message's CONSUMER span, child of the publisher's (its traceparent header).
    const work = inConsumeSpan(msg, () => options.handle(msg, heartbeat)).finally(() => {
      settled();
      release();
      inFlight.delete(work);
    });
    inFlight.add(work);
  }
}

/** Resolves with a reason when the consume status says the consumer or stream is gone. */
async function watchStatus(
  log: Logger,
  { messages, state }: { messages: ConsumerMessages; state: { waitingForSlot: boolean } },
): Promise<string> {
  for await (const status of messages.status()) {
    switch (status.type) {
      case 'consumer_deleted':
        return `consumer deleted (${status.code} ${status.description})`;
      case 'consumer_not_found':
        return 'consumer not found';
      case 'stream_not_found':
        return `stream ${status.name} not found`;
      case 'heartbeats_missed':
        // No pull is outstanding while every slot is busy, so no heartbeat
        // either: that is load, not trouble. Otherwise the client now asks
        // for the consumer's info and reports it not found if it is gone.
        if (state.waitingForSlot)
          log.debug({ missed: status.count }, 'no server heartbeat while waiting for a free slot');
        else log.warn({ missed: status.count }, 'no heartbeat from the server; checking the consumer');
        break;
      default:
        break;
    }
  }
  return never;
}

/** Resolves with `what` when an advisory arrives on `advisories`. */
async function watchAdvisory(advisories: AsyncIterable<unknown>, what: string): Promise<string> {
  for await (const _ of advisories) return what;
  return never;
}

async function open(run: Running): Promise<Session> {
  const { nc, js, stream, consumer } = run.options;
  const deletions = [
    {
      what: 'consumer deleted (advisory)',
      sub: nc.subscribe(`$JS.EVENT.ADVISORY.CONSUMER.DELETED.${stream}.${consumer}`, { max: 1 }),
    },
    {
      what: 'stream deleted (advisory)',
      sub: nc.subscribe(`$JS.EVENT.ADVISORY.STREAM.DELETED.${stream}`, { max: 1 }),
    },
  ];
  const unsubscribe = () => deletions.forEach(({ sub }) => sub.unsubscribe());
  // One message pulled at a time: the next pull goes out only once this
  // one has a slot, and its heartbeat runs from the pull on.
  let messages: ConsumerMessages;
  try {
    messages = await (await js.consumers.get(stream, consumer)).consume({ max_messages: 1 });
  } catch (err) {
    unsubscribe();
    throw err;
  }
  const state = { waitingForSlot: false };
  const loop = handleMessages(run, { messages, state });
  const ended = loop.then(
    async () => `message iterator ended${await messages.closed().then((err) => (err ? `: ${err.message}` : ''))}`,
    (err: unknown) => `message loop failed: ${err instanceof Error ? err.message : String(err)}`,
  );
  return {
    trouble: Promise.race([
      watchStatus(run.log, { messages, state }),
      ...deletions.map(({ sub, what }) => watchAdvisory(sub, what)),
      ended,
    ]),
    async close() {
      unsubscribe();
      await messages.close();
      await loop.catch(() => undefined);
    },
  };
}

/** Re-creates the consumer and consumes again whenever the session in hand reports trouble, until stop(). */
async function supervise(run: Running, signal: AbortSignal) {
  const { options, log } = run;
  const { stream, consumer } = options;
  let session = run.session!;
  await (async () => {
    for (;;) {
      const reason = await session.trouble;
      if (run.stopping) return;
      log.error({ stream, reason }, 'consumer lost; re-creating it and consuming again (its messages wait meanwhile)');
      await session.close();
      const next = await retrying(
        `re-creating consumer ${consumer}`,
        async () => {
          await options.recreate();
          return open(run);
        },
        log,
        signal,
      );
      session = next;
      run.session = next;
      if (run.stopping) {
        await next.close();
        return;
      }
      log.info({ stream }, 'consumer re-created; consuming again');
    }
  })().catch((err: unknown) => {
    if (!run.stopping)
      log.error({ err }, 'consumer supervision stopped unexpectedly; its messages are no longer handled');
  });
}
