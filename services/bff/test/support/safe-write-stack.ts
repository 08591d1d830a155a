/**
 * What the safe-write suites need around the BFF test stack: the same
 * stack (support/stack.ts: real producto-svc, bodega-svc, MariaDB, NATS and
 * the BFF) but with the services' gRPC addresses exposed, so a test can call
 * producto-svc directly as the BFF would (to leave a forced warehouse
 * delete half done); SQL on the product database (to count rows by name, to
 * lock a table or age an idempotency record); and the events of one record.
 */
import { createHash } from 'node:crypto';
import { createDb, type Knex } from '@inventario/platform';
import type { StoredEvent } from '@inventario/testkit';
import { cleanupList, startTestBackend } from './stack';
import { startBareBff } from './bare-bff';
import { TEST_USER, type TestStack } from './stack';

export interface SafeWriteStack extends TestStack {
  /** `127.0.0.1:<port>` of each gRPC service. */
  productoSvcAddr: string;
  bodegaSvcAddr: string;
  /** A pool on producto-svc's database (closed by close()). */
  productoDb: Knex;
}

/** startTestStack's stack, plus the services' addresses and a pool on the product database. */
export async function startSafeWriteStack(label: string, env: Record<string, string> = {}): Promise<SafeWriteStack> {
  const cleanups = cleanupList();
  try {
    const backend = await startTestBackend(label);
    cleanups.push(() => backend.close());
    const bff = await startBareBff({
      PRODUCTO_SVC_ADDR: backend.productoSvcAddr,
      BODEGA_SVC_ADDR: backend.bodegaSvcAddr,
      ENABLE_INIT: 'true',
      ...env,
    });
    cleanups.push(() => bff.close());
    const productoDb = createDb(backend.databaseUrls.producto);
    cleanups.push(() => productoDb.destroy());
    return {
      baseUrl: bff.baseUrl,
      metricsPort: bff.app.metricsPort,
      bodegaMetricsPort: backend.bodegaMetricsPort,
      auth: bff.auth,
      request: bff.request,
      nc: backend.nc,
      namespace: backend.namespace,
      databaseUrls: backend.databaseUrls,
      serviceAddrs: { producto: backend.productoSvcAddr, bodega: backend.bodegaSvcAddr },
      settledEvents: () => backend.settledEvents(),
      stopProductoSvc: () => backend.stopProductoSvc(),
      startProductoSvc: () => backend.startProductoSvc(),
      productoSvcAddr: backend.productoSvcAddr,
      bodegaSvcAddr: backend.bodegaSvcAddr,
      productoDb,
      close: () => cleanups.run(),
    };
  } catch (err) {
    await cleanups.run();
    throw err;
  }
}

/** The ids of the products named exactly `nombre` (SQL, not the API). */
export async function productoIdsNamed(db: Knex, nombre: string): Promise<number[]> {
  const rows = await db('productos').select('id').where({ nombre }).orderBy('id');
  return rows.map((row: { id: number }) => Number(row.id));
}

/** `eventType` without its `Service.Inventario.` prefix, e.g. `ProductoCreado`. */
export function eventName(event: StoredEvent): string {
  return event.body.eventType.split('.').pop() ?? '';
}

/** The events about `/productos/<id>` (or `/bodegas/<id>`) named `name`, in stream order. */
export function eventsAbout(events: StoredEvent[], subject: string, name?: string): StoredEvent[] {
  return events.filter((e) => e.body.subject === subject && (name === undefined || eventName(e) === name));
}

/**
 * The primary key of an idempotency record: sha256 over (user, gRPC method,
 * key), each part prefixed by its byte length (packages/platform's
 * idempotency.ts). A test recomputes it to touch exactly one record.
 */
export function idempotencyScope(method: string, key: string, usuario = TEST_USER): Buffer {
  const hash = createHash('sha256');
  for (const part of [usuario, method, key]) {
    const bytes = Buffer.from(part, 'utf8');
    hash.update(`${bytes.length}:`).update(bytes);
  }
  return hash.digest();
}

/** A fresh idempotency key: printable ASCII, unique in the run. */
export function freshKey(label: string): string {
  return `${label}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
}
