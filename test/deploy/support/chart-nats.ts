/**
 * A private nats-server running the chart's NATS authorization (values.yaml
 * `nats.config.merge`, generated from packages/local-servers'
 * nats-authorization.ts), with the passwords in its environment as the
 * chart maps them from the Secret, and the built commands the chart runs
 * against it (the provisioning Job's, the dead-letter replay's).
 */
import { connect, type NatsConnection } from '@nats-io/transport-node';
import {
  CHART_TARGET,
  natsPasswordVariables,
  natsServerAuthorization,
  type NatsUserEntry,
} from '@inventario/local-servers';
import {
  runCommand,
  serviceMain,
  startPrivateNatsServer,
  type CommandResult,
  type PrivateNatsServer,
} from '@inventario/testkit';

/** Every user of the chart and the password its Secret holds in these tests. */
export const CHART_USERS: Record<string, string> = Object.fromEntries(
  Object.keys(natsPasswordVariables()).map((user) => [user, `${user}-s3cret`]),
);

/** The server's environment: each password under the variable the chart's NATS reads. */
export function chartPasswordEnv(): Record<string, string> {
  return Object.fromEntries(
    Object.entries(natsPasswordVariables()).map(([user, variable]) => [variable, CHART_USERS[user] ?? '']),
  );
}

/** The test's own user, to read and break things as an administrator would; not part of the chart. */
export const INSPECTOR = { user: 'inspector', pass: 'inspector-s3cret' };

const inspectorEntry: NatsUserEntry = {
  user: INSPECTOR.user,
  password: INSPECTOR.pass,
  permissions: { publish: { allow: ['>'] }, subscribe: { allow: ['>'] } },
};

export interface ChartNats {
  server: PrivateNatsServer;
  url: string;
  /** A connection as `user` (a chart user with its password, or the inspector), closed by dispose(). */
  connectAs(user: string): Promise<NatsConnection>;
  /** The credentials a service gets from the Secret. */
  credentials(user: string): { NATS_USER: string; NATS_PASSWORD: string };
  dispose(): Promise<void>;
}

export async function startChartNats(): Promise<ChartNats> {
  const server = await startPrivateNatsServer({
    config: natsServerAuthorization(CHART_TARGET, [inspectorEntry]),
    env: chartPasswordEnv(),
  });
  const connections: NatsConnection[] = [];
  const passwordOf = (user: string) => (user === INSPECTOR.user ? INSPECTOR.pass : (CHART_USERS[user] ?? ''));
  return {
    server,
    url: server.url,
    async connectAs(user) {
      const nc = await connect({ servers: server.url, user, pass: passwordOf(user), reconnect: false });
      connections.push(nc);
      return nc;
    },
    credentials: (user) => ({ NATS_USER: user, NATS_PASSWORD: passwordOf(user) }),
    async dispose() {
      for (const nc of connections) await nc.close().catch(() => undefined);
      await server.dispose();
    },
  };
}

/** Runs a built notifier command (`provision-main.js`, `dlq-replay-main.js`) with only `env` (and PATH). */
export function runNotifierCommand(main: string, args: string[], env: Record<string, string>): Promise<CommandResult> {
  return runCommand(main, [serviceMain('notifier', main), ...args], env);
}

/** The variables the chart gives the stream's users (its ConfigMap's defaults). */
export function chartStreamEnv(url: string): Record<string, string> {
  return {
    NATS_URL: url,
    NATS_STREAM: CHART_TARGET.stream,
    NATS_SUBJECT_PREFIX: CHART_TARGET.prefix,
    LOG_LEVEL: 'warn',
  };
}

/** The provisioning Job: `provision-main.js` as `provisioner`, exit 0 with its JSON report. */
export async function provisionAs(
  nats: ChartNats,
  user = 'provisioner',
  env: Record<string, string> = {},
): Promise<CommandResult> {
  return runNotifierCommand('provision-main.js', [], {
    ...chartStreamEnv(nats.url),
    ...nats.credentials(user),
    ...env,
  });
}
