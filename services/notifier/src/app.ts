import { jetstreamManager, type JsMsg } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import {
  connectNatsUnlessAborted,
  createJetStreamConsumerMetrics,
  createJetStreamStreamMetrics,
  createServiceRegistry,
  createStartupGuard,
  ensureStream,
  redactUrlCredentials,
  retrying,
  startConsumerSampler,
  startMetricsServer,
  startStreamSampler,
  stopOnce,
  type JetStreamConsumerMetrics,
  type JetStreamStreamMetrics,
  type Logger,
  type ShutdownStep,
} from '@inventario/platform';
import { describeSmtpUrl, type Config } from './config';
import { classifySmtpError, createMailer, type Mailer } from './email/mailer';
import { createEmailRenderer, type EmailRenderer } from './email/templates';
import { createConcurrencyLimit } from './events/concurrency-limit';
import { eventConsumerSpecs, startConsumers } from './events/consumers';
import { createDeadLetterPublisher, deadLetterStreamName } from './events/dead-letter';
import { createDelivery } from './events/delivery';
import { setUpNotifierJetStream } from './events/jetstream-setup';
import { maxDeliveriesConsumerSpec, maxDeliveriesSubjects } from './events/max-deliveries';
import type { MessageHeartbeat } from './events/message-heartbeat';
import { openSentRegistry } from './events/sent-registry';
import { HANDLERS } from './handlers';
import { createNameLookup, type NameLookup } from './names/name-lookup';
import { createNotifierMetrics, type NotifierMetrics } from './metrics';

/** Fault injection, for tests only: no environment variable sets it. */
export interface NotifierFaults {
  /** Wait this long between recording an email as sent and acking it, so a test can kill the process in that window. */
  ackDelayMs?: number;
}

export interface StartOptions {
  /** Aborts start-up (a stop request while waiting for NATS): startApp rejects. */
  signal?: AbortSignal;
  faults?: NotifierFaults;
}

/** A running notifier. */
export interface NotifierApp {
  metrics: NotifierMetrics;
  /** The bound port of GET /metrics (the real one when METRICS_PORT=0). */
  metricsPort: number;
  /** The written shutdown sequence: consumers, NATS drain, SMTP pool, metrics server. */
  shutdownSteps: ShutdownStep[];
  /** Runs shutdownSteps once, in order; a failing step is logged and the rest still run. */
  stop(): Promise<void>;
}

/**
 * Starts the notifier (docs/contract.md §6): compiles the templates (a broken
 * one stops it here), opens the SMTP pool, then waits for NATS, makes sure the
 * stream (the services create it too; whoever starts first wins), the dead
 * letters' stream, the sent registry and the durable consumers exist (one per
 * handler for the events, one for their max-deliveries advisories, which the
 * stream captures), and starts consuming. Under the chart's authorization the
 * provisioning Job creates the streams and the bucket; the notifier waits
 * for them.
 * Resolves once it consumes; rejects if `signal` aborts first. The SMTP
 * server is not a start-up dependency: while it is down, emails are retried.
 * GET /metrics answers on METRICS_PORT from the start, while NATS is awaited.
 * One linear start-up sequence whose order is the contract.
 */
export async function startApp(config: Config, logger: Logger, options: StartOptions = {}): Promise<NotifierApp> {
  const signal = options.signal ?? new AbortController().signal;
  const faultAckDelayMs = options.faults?.ackDelayMs ?? 0;
  const renderer = createEmailRenderer(HANDLERS.map((h) => h.template));
  const registry = createServiceRegistry('notifier');
  const metrics = createNotifierMetrics(registry);
  const consumerMetrics = createJetStreamConsumerMetrics(
    registry,
    HANDLERS.map((h) => h.name),
  );
  const streamMetrics = createJetStreamStreamMetrics(registry);
  // Whatever a step opened is closed if a later one throws (an SMTP URL nodemailer refuses, an aborted wait).
  const guard = createStartupGuard();
  const metricsServer = await guard.step(
    () => startMetricsServer({ registry, host: config.metricsHost, port: config.metricsPort, logger }),
    (server) => server.close(),
  );
  const mailer = await guard.step(
    () =>
      createMailer({
        smtpUrl: config.smtpUrl,
        from: config.senderEmail,
        to: config.recipientEmails,
        maxConnections: config.concurrency,
      }),
    (pool) => pool.close(),
  );
  const names = await guard.step(
    () =>
      createNameLookup(
        {
          productoSvcAddr: config.productoSvcAddr,
          bodegaSvcAddr: config.bodegaSvcAddr,
          serviceToken: config.serviceToken,
        },
        logger,
      ),
    (lookup) => lookup.close(),
  );
  logger.info(
    {
      smtp: describeSmtpUrl(config.smtpUrl),
      from: config.senderEmail,
      to: config.recipientEmails,
      concurrency: config.concurrency,
    },
    'notifier starting',
  );
  if (faultAckDelayMs > 0) {
    logger.warn({ faultAckDelayMs }, 'fault injection: every ack is delayed after the email is recorded as sent');
  }
  // Early word for operators; a failure here changes nothing (sends are retried).
  mailer.verify().then(
    () => logger.info({ smtp: describeSmtpUrl(config.smtpUrl) }, 'smtp server reachable'),
    (err: unknown) =>
      logger.warn(
        { smtp: describeSmtpUrl(config.smtpUrl), reason: classifySmtpError(err).reason },
        'smtp server not reachable yet; emails wait and are retried',
      ),
  );

  logger.info({ nats: redactUrlCredentials(config.natsUrl) }, 'connecting to NATS');
  const connection = await guard.step(
    () => connectNatsUnlessAborted(config.natsUrl, 'notifier', logger, signal, config.natsCredentials),
    (nc) => (nc.isClosed() ? undefined : nc.close()),
  );
  const { consumers, stopSampler } = await guard.step(() =>
    startEventHandling({
      connection,
      config,
      logger,
      signal,
      renderer,
      mailer,
      names,
      metrics,
      consumerMetrics,
      streamMetrics,
      faultAckDelayMs,
    }),
  );

  const shutdownSteps: ShutdownStep[] = [
    // Emails in flight finish and are acked before the connection goes.
    {
      name: 'consumers',
      run: async () => {
        await stopSampler();
        await consumers.stop();
      },
    },
    { name: 'nats drain', run: async () => (connection.isClosed() ? undefined : connection.drain()) },
    { name: 'smtp pool', run: () => mailer.close() },
    { name: 'name lookups', run: () => names.close() },
    // Last, so the final scrape still sees the shutdown.
    { name: 'metrics server', run: () => metricsServer.close() },
  ];
  return {
    metrics,
    metricsPort: metricsServer.port,
    shutdownSteps,
    stop: stopOnce(shutdownSteps, logger),
  };
}

/** What the notifier's event handling is built from: startApp's connection, config and what it opened. */
interface EventHandlingInput {
  connection: NatsConnection;
  config: Config;
  logger: Logger;
  signal: AbortSignal;
  renderer: EmailRenderer;
  mailer: Mailer;
  names: NameLookup;
  metrics: NotifierMetrics;
  consumerMetrics: JetStreamConsumerMetrics;
  streamMetrics: JetStreamStreamMetrics;
  faultAckDelayMs: number;
}

/** The streams and the sent registry, the delivery, the consumers and their samplers. */
async function startEventHandling(input: EventHandlingInput) {
  const { connection, config, logger, signal, renderer, mailer, names, metrics, consumerMetrics } = input;
  const { streamMetrics, faultAckDelayMs } = input;
  const stream = config.natsStream;
  const prefix = config.natsSubjectPrefix;
  // The stream also captures the consumers' max-deliveries advisories (max-deliveries.ts).
  const advisorySubjects = maxDeliveriesSubjects(stream, HANDLERS);
  const sent = await setUpAndOpenSentRegistry({ connection, config, logger, signal });
  const deadLetters = createDeadLetterPublisher(connection, prefix);
  const deliver = createDelivery({
    namespace: config.eventTypeNamespace,
    prefix,
    renderer,
    mailer,
    sent,
    deadLetters,
    metrics,
    logger,
    retry: { maxDeliver: config.maxDeliver, backoffMs: config.backoffMs },
    faultAckDelayMs,
    names,
  });
  const jsm = await jetstreamManager(connection);
  const settings = { stream, prefix, ackWaitMs: config.ackWaitMs, maxDeliver: config.maxDeliver };
  const specs = [
    ...eventConsumerSpecs(HANDLERS, settings, deliver).map((spec) => ({
      ...spec,
      handle: (msg: JsMsg, heartbeat: MessageHeartbeat) => {
        if (msg.info.deliveryCount > 1) consumerMetrics.redeliveries.inc({ consumer: spec.config.durable_name });
        return spec.handle(msg, heartbeat);
      },
    })),
    maxDeliveriesConsumerSpec({
      jsm,
      stream,
      handlers: HANDLERS,
      namespace: config.eventTypeNamespace,
      sent,
      deadLetters,
      metrics,
      logger,
      ackWaitMs: config.ackWaitMs,
    }),
  ];
  const limit = createConcurrencyLimit(config.concurrency);
  const consumers = await retrying(
    'consumer start',
    async () => {
      // Again here: a service starting at the same moment may have updated
      // the stream from a read taken before ours and dropped the advisory
      // subjects, and MaxDeliveriesHandler's filter needs them.
      await ensureStream(connection, {
        name: stream,
        subjects: [`${prefix}.>`, ...advisorySubjects],
        limits: config.streamLimits,
        replicas: config.streamReplicas,
      });
      return startConsumers({ nc: connection, stream, consumers: specs, limit, ackWaitMs: config.ackWaitMs, logger });
    },
    logger,
    signal,
  );
  const stopSampler = startSamplers({ connection, stream, logger, consumerMetrics, streamMetrics });
  return { consumers, stopSampler };
}

/** The streams and the bucket set up (or, under the chart's authorization, waited for), then the registry. */
function setUpAndOpenSentRegistry({
  connection,
  config,
  logger,
  signal,
}: Pick<EventHandlingInput, 'connection' | 'config' | 'logger' | 'signal'>) {
  const stream = config.natsStream;
  const prefix = config.natsSubjectPrefix;
  return retrying(
    'event set-up',
    async () => {
      await setUpNotifierJetStream(
        connection,
        {
          stream,
          prefix,
          limits: config.streamLimits,
          deadLetterMaxBytes: config.deadLetterMaxBytes,
          sentBucket: config.sentBucket,
          replicas: config.streamReplicas,
        },
        logger,
      );
      return openSentRegistry(connection, {
        bucket: config.sentBucket,
        staleAfterMs: config.ackWaitMs,
        replicas: config.streamReplicas,
      });
    },
    logger,
    signal,
  );
}

/** Samplers of the consumers' and the streams' state; the function returned stops both. */
function startSamplers({
  connection,
  stream,
  logger,
  consumerMetrics,
  streamMetrics,
}: Pick<EventHandlingInput, 'connection' | 'logger' | 'consumerMetrics' | 'streamMetrics'> & { stream: string }) {
  const stopConsumerSampler = startConsumerSampler({
    nc: connection,
    stream,
    consumers: HANDLERS.map((h) => h.name),
    metrics: consumerMetrics,
    logger,
  });
  // How full the events' and the letters' streams are (InventarioStreamFilling).
  const stopStreamSampler = startStreamSampler({
    nc: connection,
    streams: [stream, deadLetterStreamName(stream)],
    metrics: streamMetrics,
    logger,
  });
  return async () => {
    await stopConsumerSampler();
    await stopStreamSampler();
  };
}
