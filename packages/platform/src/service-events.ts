import type { Knex } from './db';
import type { Logger } from './logger';
import type { OutboxRelayMetrics } from './metrics/outbox-metrics';
import { ensureStream, type NatsConnection } from './nats';
import type { ShutdownStep } from './shutdown';
import { createOutboxRelay, jetStreamPublisher, type OutboxRelay } from './outbox';
import { redactUrlCredentials } from './redact';
import type { ServiceConfig } from './service-config';
import { connectNatsUnlessAborted, retrying } from './start-up';

/** Where the NATS side of a service lives once it is connected. */
export interface EventsContext {
  nc: NatsConnection;
  stream: string;
  prefix: string;
}

/**
 * Fault injection for tests only, set through startApp's options, never
 * from the environment (docs/decisions.md, "Fault injection").
 */
export interface OutboxFaults {
  /** The relay waits this long between JetStream's acks and marking the rows (OutboxRelayOptions.faultMarkDelayMs). */
  relayMarkDelayMs?: number;
}

export interface ServiceEventsOptions {
  /** Process name, e.g. `producto-svc` (the NATS connection's name). */
  name: string;
  config: Pick<
    ServiceConfig,
    'natsUrl' | 'natsCredentials' | 'natsStream' | 'natsSubjectPrefix' | 'streamLimits' | 'streamReplicas'
  >;
  db: Knex;
  logger: Logger;
  metrics: OutboxRelayMetrics;
  faults?: OutboxFaults;
}

/** The event side of a gRPC service: NATS, its stream and the outbox relay. */
export interface ServiceEvents {
  /**
   * Wakes the relay; call after each committed write (before the relay runs, a no-op: it reads all pending rows when it
   * starts).
   */
  notifyRelay: () => void;
  /**
   * In the background: connects to NATS, makes sure the stream exists and
   * starts the relay, retrying each while it fails. Resolves with where the
   * events live; rejects once the consumers' shutdown step ran first.
   */
  start(): Promise<EventsContext>;
  /** Aborted when the consumers' shutdown step runs, for other work waiting on NATS (a consumer start). */
  stopping: AbortSignal;
  /** Resolves with `started` once it is, logging "events ready"; logs its failure (unless stopping) and rejects. */
  ready(started: Promise<unknown>): Promise<void>;
  /**
   * The steps that close the events, in their order, for the service's shutdown sequence:
   * the consumers (`consumers`, whatever started them), then the outbox relay (after the
   * gRPC server, so the events of the last writes go out now or on the next start), then
   * the NATS drain.
   */
  shutdownSteps(consumers: Promise<{ stop(): Promise<void> }>): ShutdownStep[];
}

/** How long one JetStream publish may wait for its ack before the relay backs off. */
const PUBLISH_TIMEOUT_MS = 5000;

/**
 * A service's events: a broker outage must delay events, never writes
 * (docs/contract.md §5.6), so NATS comes up in the background while writes
 * are served, and their events wait in the outbox until the relay runs. One closure: start, ready and the
 * shutdown steps share the connection, the relay and the abort signal.
 */
export function createServiceEvents(options: ServiceEventsOptions): ServiceEvents {
  const { name, config, db, logger } = options;
  const abort = new AbortController();
  let nc: NatsConnection | undefined;
  let relay: OutboxRelay | undefined;
  return {
    notifyRelay: () => relay?.notify(),
    async start() {
      logger.info(
        { nats: redactUrlCredentials(config.natsUrl) },
        'connecting to NATS in the background; events wait in the outbox until then',
      );
      nc = await connectNatsUnlessAborted(config.natsUrl, name, logger, abort.signal, config.natsCredentials);
      const events: EventsContext = { nc, stream: config.natsStream, prefix: config.natsSubjectPrefix };
      const streamSpec = {
        name: events.stream,
        subjects: [`${events.prefix}.>`],
        limits: config.streamLimits,
        replicas: config.streamReplicas,
      };
      const stream = await retrying('stream setup', () => ensureStream(events.nc, streamSpec), logger, abort.signal);
      // Under the chart's authorization the provisioning Job owns the stream's settings.
      if (stream.outcome === 'not-permitted') {
        logger.warn(
          { stream: events.stream, differences: stream.differences },
          'the stream differs from this configuration and this NATS user may not update it; used as it is',
        );
      }
      relay = createOutboxRelay({
        db,
        publish: jetStreamPublisher(events.nc, PUBLISH_TIMEOUT_MS),
        logger,
        faultMarkDelayMs: options.faults?.relayMarkDelayMs,
        metrics: options.metrics,
      });
      relay.start();
      relay.notify(); // rows committed before the relay existed
      // A reconnect may be to a server that lost its store (a pod's disk replaced): the stream is
      // made again before the relay retries, or every event would wait for an operator.
      const connection = nc;
      void (async () => {
        for await (const s of connection.status()) {
          if (s.type !== 'reconnect') continue;
          await ensureStream(connection, streamSpec).catch((err: unknown) =>
            logger.warn(
              { err, stream: events.stream },
              'stream check after a NATS reconnect failed; the relay retries with back-off',
            ),
          );
          relay?.retryNow();
        }
      })();
      return events;
    },
    stopping: abort.signal,
    ready(started) {
      const ready = started.then(
        () => logger.info({ stream: config.natsStream, prefix: config.natsSubjectPrefix }, 'events ready'),
        (err: unknown) => {
          if (!abort.signal.aborted) logger.error({ err }, 'event setup failed; events wait in the outbox');
          throw err;
        },
      );
      // Nobody need await it (main does not); its failure is logged above.
      ready.catch(() => undefined);
      return ready;
    },
    shutdownSteps(consumers) {
      return [
        {
          name: 'consumers',
          run: async () => {
            abort.abort();
            await consumers.then(
              (started) => started.stop(),
              () => undefined,
            );
          },
        },
        { name: 'outbox relay', run: async () => relay?.stop() },
        { name: 'nats drain', run: async () => (nc && !nc.isClosed() ? nc.drain() : undefined) },
      ];
    },
  };
}
