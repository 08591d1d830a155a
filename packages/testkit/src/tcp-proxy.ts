import { createServer, connect, type Server, type Socket } from 'node:net';
import { freePort } from './free-port';

/**
 * A TCP forwarder the test can cut, to make a real server unreachable for
 * the service under test (connections reset, new ones refused) and back.
 */
export interface TcpProxy {
  port: number;
  /** Resets every open connection and refuses new ones. */
  cut(): Promise<void>;
  /** Accepts connections again, on the same port. */
  restore(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  // restore() listens on this port again: from freePort, so no listen on port 0 can take it meanwhile.
  const port = await freePort();

  function track(socket: Socket): void {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  }

  async function listen(): Promise<void> {
    const srv = createServer((client) => {
      const upstream = connect(targetPort, targetHost);
      track(client);
      track(upstream);
      client.on('error', () => upstream.destroy());
      upstream.on('error', () => client.destroy());
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve, reject) => {
      srv.once('error', reject);
      srv.listen(port, '127.0.0.1', () => resolve());
    });
    server = srv;
  }

  async function stopListening(): Promise<void> {
    const srv = server;
    server = undefined;
    for (const socket of sockets) socket.resetAndDestroy();
    if (srv) await new Promise<void>((resolve) => srv.close(() => resolve()));
  }

  await listen();
  return {
    port,
    cut: stopListening,
    restore: listen,
    close: stopListening,
  };
}
