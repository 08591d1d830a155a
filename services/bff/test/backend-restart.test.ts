/**
 * The in-process producto-svc of the BFF tests restarts on the port it had
 * (so the BFF's channel finds it again), and that port comes from freePort:
 * while the service is stopped, no listen on port 0 on the machine can take
 * it, so the restart cannot fail with EADDRINUSE. (It used to be a port the
 * kernel handed out for port 0: graphql-api.test.ts restarts the service in
 * an afterAll, where such a failure is "Test suite failed to run".)
 */
import { createServer, type Server } from 'node:net';
import { ephemeralPortRange } from '@inventario/testkit';
import { startTestBackend, type TestBackend } from './support/stack';

let backend: TestBackend;

beforeAll(async () => {
  backend = await startTestBackend('restart');
});

afterAll(async () => {
  await backend?.close();
});

test('producto-svc restarts on its port, which no listen on port 0 can take while it is stopped', async () => {
  const port = Number(backend.productoSvcAddr.split(':')[1]);
  const [low, high] = ephemeralPortRange();
  expect(port < low || port > high).toBe(true);

  await backend.stopProductoSvc();
  const servers: Server[] = [];
  try {
    // Others listening on port 0 meanwhile (the other jest worker, other runs) get other ports.
    for (let i = 0; i < 200; i++) {
      servers.push(
        await new Promise<Server>((resolve, reject) => {
          const server = createServer();
          server.once('error', reject);
          server.listen(0, '127.0.0.1', () => resolve(server));
        }),
      );
    }
    expect(servers.map((s) => (s.address() as { port: number }).port)).not.toContain(port);
    await backend.startProductoSvc();
  } finally {
    await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  }
  expect(backend.productoSvcAddr).toBe(`127.0.0.1:${port}`);
});
