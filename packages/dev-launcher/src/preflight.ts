import { connect as connectTcp, createServer } from 'node:net';
import { connect } from '@nats-io/transport-node';
import { ensureDatabase, isTransientDbError, parseMysqlUrl, redactUrlCredentials } from '@inventario/platform';

export const START_MARIADB = 'start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd';
export const START_NATS =
  'start-stop-daemon --start --oknodo --background --exec /usr/sbin/nats-server -- -a 127.0.0.1 -p 4222 -js -sd ' +
  '/var/lib/nats-server';

/** One thing that stops the system from starting, naming the variable to check. */
export interface Problem {
  variable: string;
  message: string;
}

/** Creates the database behind `url` if missing. */
export async function prepareDatabase(variable: string, url: string): Promise<Problem | undefined> {
  const t = parseMysqlUrl(url);
  try {
    await ensureDatabase(url);
    return undefined;
  } catch (err) {
    if (isTransientDbError(err)) {
      return {
        variable,
        message: `MariaDB at ${t.host}:${t.port} is not answering. Start it with:\n    ${START_MARIADB}`,
      };
    }
    // e.g. access denied: the server's own words name the user, never the password.
    const reason = err instanceof Error ? err.message : String(err);
    return { variable, message: `MariaDB at ${t.host}:${t.port} refused to create database ${t.database}: ${reason}` };
  }
}

/** Checks that NATS answers and has JetStream enabled. */
export async function checkNats(url: string): Promise<Problem | undefined> {
  let nc;
  try {
    nc = await connect({ servers: url.split(','), timeout: 3000, maxReconnectAttempts: 0, reconnect: false });
  } catch {
    return {
      variable: 'NATS_URL',
      message: `NATS at ${redactUrlCredentials(url)} is not answering. Start it with:\n    ${START_NATS}`,
    };
  }
  try {
    // The server leaves `jetstream` out of its INFO when it runs without -js.
    if (nc.info?.jetstream !== true) {
      return {
        variable: 'NATS_URL',
        message: `NATS at ${redactUrlCredentials(url)} runs without JetStream. Restart it with -js:\n    ${START_NATS}`,
      };
    }
    return undefined;
  } finally {
    await nc.close();
  }
}

/** Checks that nothing listens on `port` yet (a leftover process would answer our health probe). */
export function checkPortFree(variable: string, host: string, port: number): Promise<Problem | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', (err: NodeJS.ErrnoException) =>
      resolve({
        variable,
        message:
          `port ${port} on ${host} is not available (${err.code ?? err.message}); stop what uses it or ` +
          `choose another port`,
      }),
    );
    server.listen(port, host, () => server.close(() => resolve(undefined)));
  });
}

/**
 * Whether a MailDev already serves its inbox on 127.0.0.1:`webPort` (e.g.
 * compose.yaml's) and accepts SMTP on `smtpPort`: the launcher then uses it
 * instead of starting its own on the same ports.
 */
export async function mailDevRunning(smtpPort: number, webPort: number): Promise<boolean> {
  try {
    const res = await fetch(`http://127.0.0.1:${webPort}/email`, { signal: AbortSignal.timeout(2000) });
    if (!res.ok || !Array.isArray(await res.json())) return false;
  } catch {
    return false;
  }
  return answers('127.0.0.1', smtpPort);
}

/** Whether something accepts TCP connections at host:port (refused, or no answer within 2 s: no). */
export function answers(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connectTcp({ host: host.replace(/^\[|\]$/g, ''), port, timeout: 2000 });
    const done = (open: boolean) => {
      socket.destroy();
      resolve(open);
    };
    socket.once('connect', () => done(true));
    socket.once('timeout', () => done(false));
    socket.once('error', () => done(false));
  });
}
