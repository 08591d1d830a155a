/**
 * producto-svc and bodega-svc in-process without a BFF, for tests that
 * build their own client of them (the seed command, a BFF router wired by
 * hand). Same set-up as support/stack.ts: fresh databases, one private
 * stream / subject prefix, ephemeral gRPC ports; close() removes it all.
 */
import { createLogger, type NatsConnection } from '@inventario/platform';
import {
  connectTestNats,
  createTestDatabase,
  deleteStream,
  readStream,
  testEventNamespace,
  TEST_NATS_URL,
  type StoredEvent,
} from '@inventario/testkit';
import { startApp as startProductoApp } from '../../../producto-svc/src/app';
import { loadConfig as loadProductoConfig } from '../../../producto-svc/src/config';
import { startApp as startBodegaApp } from '../../../bodega-svc/src/app';
import { loadConfig as loadBodegaConfig } from '../../../bodega-svc/src/config';

export interface TestBackend {
  /** `127.0.0.1:<port>` of each service. */
  productoSvcAddr: string;
  bodegaSvcAddr: string;
  /** Every event in the backend's stream (waits for nothing: poll with waitFor). */
  events(): Promise<StoredEvent[]>;
  close(): Promise<void>;
}

const LOG_LEVEL = process.env.TEST_LOG_LEVEL ?? 'silent';

export async function startTestBackend(label: string): Promise<TestBackend> {
  const namespace = testEventNamespace();
  const cleanups: (() => Promise<void>)[] = [];
  const close = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  };
  try {
    const env = (databaseUrl: string) => ({
      DATABASE_URL: databaseUrl,
      GRPC_PORT: '0',
      GRPC_HOST: '127.0.0.1',
      NATS_URL: TEST_NATS_URL,
      NATS_STREAM: namespace.stream,
      NATS_SUBJECT_PREFIX: namespace.prefix,
      LOG_LEVEL,
      SHUTDOWN_DRAIN_MS: '0',
      SHUTDOWN_TIMEOUT_MS: '10000',
    });
    const productoDb = await createTestDatabase(`${label}_p`);
    cleanups.push(() => productoDb.drop());
    const bodegaDb = await createTestDatabase(`${label}_b`);
    cleanups.push(() => bodegaDb.drop());
    const nc: NatsConnection = await connectTestNats();
    cleanups.push(async () => {
      await deleteStream(nc, namespace.stream);
      await nc.close();
    });
    const producto = await startProductoApp(loadProductoConfig(env(productoDb.url)), createLogger('producto-svc', LOG_LEVEL));
    cleanups.push(() => producto.stop());
    const bodega = await startBodegaApp(loadBodegaConfig(env(bodegaDb.url)), createLogger('bodega-svc', LOG_LEVEL));
    cleanups.push(() => bodega.stop());

    return {
      productoSvcAddr: `127.0.0.1:${producto.grpcPort}`,
      bodegaSvcAddr: `127.0.0.1:${bodega.grpcPort}`,
      events: () => readStream(nc, namespace.stream),
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}
