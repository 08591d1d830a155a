/**
 * The JetStream consumer sampler against a private nats-server (so every
 * JetStream API request seen is the sampler's): the gauges take the
 * consumer's server-side numbers, and the manager it asks through is
 * created once, not on every sample.
 */
import { AckPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection, type Subscription } from '@nats-io/transport-node';
import {
  createJetStreamConsumerMetrics,
  createLogger,
  createServiceRegistry,
  startConsumerSampler,
} from '@inventario/platform';
import { metricSample as sample, startPrivateNatsServer, waitFor, type PrivateNatsServer } from '@inventario/testkit';

const STREAM = 'SAMPLER';
const CONSUMER = 'idle-consumer';

let nats: PrivateNatsServer;
let nc: NatsConnection;
let observer: NatsConnection;

beforeAll(async () => {
  nats = await startPrivateNatsServer();
  nc = await connect({ servers: nats.url });
  observer = await connect({ servers: nats.url });
  const jsm = await jetstreamManager(nc);
  await jsm.streams.add({ name: STREAM, subjects: ['sampler.>'] });
  // Nobody consumes it: what is published stays pending.
  await jsm.consumers.add(STREAM, { durable_name: CONSUMER, ack_policy: AckPolicy.Explicit });
});

afterAll(async () => {
  await observer?.close();
  await nc?.close();
  await nats?.dispose();
});

/** Counts the requests published on `subject` from now on. */
function countRequests(subject: string): { sub: Subscription; count: () => number } {
  let n = 0;
  const sub = observer.subscribe(subject, {
    callback: () => {
      n += 1;
    },
  });
  return { sub, count: () => n };
}

test('reports the consumer pending messages, asking for JetStream account info once however many samples', async () => {
  const js = jetstream(nc);
  for (let i = 0; i < 3; i += 1) await js.publish('sampler.evento', `m${i}`);
  const accountInfo = countRequests('$JS.API.INFO');
  const consumerInfo = countRequests(`$JS.API.CONSUMER.INFO.${STREAM}.${CONSUMER}`);
  await observer.flush();

  const registry = createServiceRegistry('notifier');
  const metrics = createJetStreamConsumerMetrics(registry, [CONSUMER]);
  const stop = startConsumerSampler({
    nc,
    stream: STREAM,
    consumers: [CONSUMER],
    metrics,
    logger: createLogger('sampler-test', 'silent'),
    intervalMs: 10,
  });
  try {
    await waitFor(() => consumerInfo.count() >= 5, 'five samples');
    const text = await registry.metrics();
    expect(sample(text, 'inventario_jetstream_consumer_pending_messages', { consumer: CONSUMER })).toBe(3);
    expect(sample(text, 'inventario_jetstream_consumer_ack_pending_messages', { consumer: CONSUMER })).toBe(0);
  } finally {
    await stop();
  }
  await observer.flush();
  expect(accountInfo.count()).toBe(1);
  accountInfo.sub.unsubscribe();
  consumerInfo.sub.unsubscribe();
});
