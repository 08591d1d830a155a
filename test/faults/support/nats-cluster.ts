/**
 * A private NATS JetStream cluster on loopback for fault tests: `size`
 * nats-server processes, each with its own client port, cluster port,
 * server name and store dir, all routed to each other (the same --routes
 * on every node). A node can be SIGKILLed, started again on the same
 * ports and store, or started again with an empty store (a pod whose disk
 * was lost). Leaders are asked of the servers, never assumed.
 */
import { rmSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { findProgram } from '@inventario/local-servers';
import { freePort, startPrivateServer, waitFor, type PrivateServer } from '@inventario/testkit';

const NATS_SERVER_BIN = findProgram('nats-server', process.env) ?? 'nats-server';

export interface NatsClusterNode {
  /** The server name (`-n`), as stream info names its leader and replicas. */
  readonly name: string;
  readonly url: string;
  /** Its directory; the JetStream store is `<dir>/jetstream`. */
  readonly dir: string;
  running(): boolean;
  /** SIGKILL: no clean shutdown, its store as the kill left it. */
  kill(): Promise<void>;
  /** Starts it again on the same ports; `emptyStore` first deletes its JetStream store (a replaced disk). */
  restart(options?: { emptyStore?: boolean }): Promise<void>;
}

export interface NatsCluster {
  nodes: readonly NatsClusterNode[];
  /** Every node's URL, comma-separated: what NATS_URL is given. */
  url: string;
  node(name: string): NatsClusterNode;
  /** A client connected to every node (it fails over between them). */
  connect(): Promise<NatsConnection>;
  /** The name of the node leading `stream` now (waits until it has one). */
  streamLeader(nc: NatsConnection, stream: string, timeoutMs?: number): Promise<string>;
  /** Waits until `stream` has a leader and `replicas` followers, all current. */
  streamHealthy(nc: NatsConnection, stream: string, replicas: number, timeoutMs?: number): Promise<void>;
  dispose(): Promise<void>;
}

export async function startNatsCluster(size = 3): Promise<NatsCluster> {
  const clusterName = `inv${process.pid}`;
  const ports = await Promise.all(
    Array.from({ length: size }, async () => ({ client: await freePort(), cluster: await freePort() })),
  );
  const routes = ports.map((p) => `nats://127.0.0.1:${p.cluster}`).join(',');
  const servers: PrivateServer[] = [];
  const nodes: NatsClusterNode[] = [];
  const dispose = async () => {
    await Promise.all(servers.map((s) => s.dispose()));
  };
  try {
    await Promise.all(
      ports.map(async (p, i) => {
        const name = `n${i + 1}`;
        const dir = mkdtempSync(join(tmpdir(), `inventario-natsc-${name}-`));
        const pidFile = join(dir, 'nats-server.pid');
        const server = await startPrivateServer({
          name: `nats-server ${name} on ${p.client}`,
          command: NATS_SERVER_BIN,
          args: [
            ...['-a', '127.0.0.1', '-p', String(p.client), '-n', name, '-P', pidFile],
            ...['--cluster_name', clusterName, '--cluster', `nats://127.0.0.1:${p.cluster}`, '--routes', routes],
            ...['-js', '-sd', dir],
          ],
          readyText: 'Server is ready',
          startTimeoutMs: 30_000,
          stopGraceMs: 5000,
          dir,
          pidFile,
        });
        servers[i] = server;
        let up = true;
        nodes[i] = {
          name,
          url: `nats://127.0.0.1:${p.client}`,
          dir,
          running: () => up,
          async kill() {
            server.signal('SIGKILL');
            await server.stop();
            up = false;
          },
          async restart(options = {}) {
            if (up) throw new Error(`${name} still runs`);
            if (options.emptyStore) rmSync(join(dir, 'jetstream'), { recursive: true, force: true });
            await server.start();
            up = true;
          },
        };
      }),
    );
  } catch (err) {
    await dispose();
    throw err;
  }
  const url = nodes.map((n) => n.url).join(',');
  const connectAll = () =>
    connect({ servers: nodes.map((n) => n.url), reconnectTimeWait: 200, maxReconnectAttempts: -1, timeout: 5000 });
  return {
    nodes,
    url,
    node(name) {
      const found = nodes.find((n) => n.name === name);
      if (!found) throw new Error(`no node ${name}`);
      return found;
    },
    connect: connectAll,
    async streamLeader(nc, stream, timeoutMs = 30_000) {
      return waitFor(
        async () => {
          const info = await (
            await jetstreamManager(nc, { timeout: 2000 })
          ).streams
            .info(stream)
            .catch(() => undefined);
          return info?.cluster?.leader || undefined;
        },
        `a leader of ${stream}`,
        timeoutMs,
        200,
      );
    },
    async streamHealthy(nc, stream, replicas, timeoutMs = 60_000) {
      await waitFor(
        async () => {
          const info = await (
            await jetstreamManager(nc, { timeout: 2000 })
          ).streams
            .info(stream)
            .catch(() => undefined);
          const followers = info?.cluster?.replicas ?? [];
          return (
            Boolean(info?.cluster?.leader) &&
            followers.length === replicas - 1 &&
            followers.every((r) => r.current && !r.offline)
          );
        },
        `${stream} to have ${replicas} current replicas`,
        timeoutMs,
        250,
      );
    },
    dispose,
  };
}
