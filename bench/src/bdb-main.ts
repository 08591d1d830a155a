/**
 * The B_db yardstick as its own process (the harness starts it like the
 * services): DATABASE_URL (producto-svc's database) and PORT. Reports
 * ready over IPC like a service's main (platform's announceStarted), and
 * stops on SIGTERM or when the harness's IPC channel closes.
 */
import { READY_MESSAGE_TYPE } from '@inventario/platform';
import { createBdbApp, createBdbPool, listen } from './bdb-app';

async function main(): Promise<void> {
  const databaseUrl = process.env.DATABASE_URL;
  const port = Number(process.env.PORT ?? '0');
  if (!databaseUrl || !Number.isInteger(port)) {
    process.stderr.write('bdb: DATABASE_URL and a numeric PORT are required\n');
    process.exit(1);
  }
  const pool = createBdbPool(databaseUrl);
  const server = await listen(createBdbApp(pool), port);
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    server.closeAllConnections();
    server.close(() => void pool.end().finally(() => process.exit(0)));
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
