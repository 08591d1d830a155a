/**
 * freePort hands out ports that nothing takes on its own between the moment
 * a test gets one and the moment it binds it (or binds it again after a
 * restart): outside the kernel's ephemeral range, where every listen on
 * port 0 and every outgoing connection on the machine draws its ports.
 */
import { createServer, type Server } from 'node:net';
import { ephemeralPortRange, freePort } from '@inventario/testkit';

function listen(port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

const close = (server: Server) => new Promise((resolve) => server.close(resolve));

describe('freePort', () => {
  test('hands out distinct ports outside the ephemeral range, each one bindable', async () => {
    const [low, high] = ephemeralPortRange();
    const ports: number[] = [];
    for (let i = 0; i < 50; i++) ports.push(await freePort());
    expect(new Set(ports).size).toBe(ports.length);
    expect(ports.filter((port) => port >= low && port <= high)).toEqual([]);
    expect(ports.filter((port) => port < 20_000)).toEqual([]);
    for (const port of ports.slice(0, 5)) await close(await listen(port));
  });

  test('a released port is never what a listen on port 0 gets', async () => {
    const released = new Set<number>();
    for (let i = 0; i < 20; i++) released.add(await freePort());
    const servers: Server[] = [];
    try {
      for (let i = 0; i < 300; i++) servers.push(await listen(0));
      const taken = servers.map((s) => (s.address() as { port: number }).port);
      expect(taken.filter((port) => released.has(port))).toEqual([]);
      // The kernel's own picks all lie in the range freePort keeps out of.
      const [low, high] = ephemeralPortRange();
      expect(taken.every((port) => port >= low && port <= high)).toBe(true);
    } finally {
      await Promise.all(servers.map(close));
    }
  });

  test('skips a port something already listens on', async () => {
    const busy = await listen(await freePort());
    try {
      const port = (busy.address() as { port: number }).port;
      for (let i = 0; i < 20; i++) expect(await freePort()).not.toBe(port);
    } finally {
      await close(busy);
    }
  });
});
