/**
 * The B_db yardstick as its own process (the harness starts it like the
 * services): DATABASE_URL (producto-svc's database) and PORT; with
 * BDB_WRITE_DATABASE_URL also the write yardsticks (bdb-writes.ts). Reports
 * ready over IPC like a service's main (platform's announceStarted), and
 * stops on SIGTERM or when the harness's IPC channel closes.
 */
import { READY_MESSAGE_TYPE } from '@inventario/platform';
import { createBdbApp, createBdbPool, listen } from './bdb-app';
import { addBdbWriteRoutes, createBdbWritePool } from './bdb-writes';

async function main(): Promise<void> {
  const databaseUrl = process.env.DATABASE_URL;
  const port = Number(process.env.PORT ?? '0');
  if (!databaseUrl || !Number.isInteger(port)) {
    process.stderr.write('bdb: DATABASE_URL and a numeric PORT are required\n');
    process.exit(1);
  }
  const pool = createBdbPool(databaseUrl);
  const app = createBdbApp(pool);
  // Issue 23's write yardsticks, on a database of B_db's own (prepared by the harness).
  const writeUrl = process.env.BDB_WRITE_DATABASE_URL;
  const writePool = writeUrl ? createBdbWritePool(writeUrl) : undefined;
  if (writePool) addBdbWriteRoutes(app, writePool);
  const server = await listen(app, port);
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    server.closeAllConnections();
    server.close(() => void Promise.all([pool.end(), writePool?.end()]).finally(() => process.exit(0)));
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  process.on('disconnect', stop);
  process.send?.({ type: READY_MESSAGE_TYPE });
}

main().catch((err: unknown) => {
  process.stderr.write(`bdb: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
