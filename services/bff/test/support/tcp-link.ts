/**
 * A TCP link the test can cut: a local proxy to `target` (e.g. one BFF's
 * way to nats-server) whose connections are all dropped by cut(), and new
 * ones refused, until restore(). The other clients of the server keep theirs.
 */
import { createServer, connect, type Socket } from 'node:net';

export interface TcpLink {
  /** `127.0.0.1:<port>` of the proxy. */
  port: number;
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

export async function startTcpLink(targetPort: number): Promise<TcpLink> {
  const sockets = new Set<Socket>();
  let open = true;
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
  };
  const server = createServer((client) => {
    track(client);
    if (!open) {
      client.destroy();
      return;
    }
    const upstream = connect(targetPort, '127.0.0.1');
    track(upstream);
    client.pipe(upstream).pipe(client);
    client.once('close', () => upstream.destroy());
    upstream.once('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return {
    port: address.port,
    cut() {
      open = false;
      for (const socket of sockets) socket.destroy();
    },
    restore() {
      open = true;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
