import { connect } from '@nats-io/transport-node';
import { ensureDatabase, isTransientDbError, parseMysqlUrl } from '@inventario/platform';

export const START_MARIADB = 'start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd';
export const START_NATS =
  'start-stop-daemon --start --oknodo --background --exec /usr/sbin/nats-server -- -a 127.0.0.1 -p 4222 -js -sd /var/lib/nats-server';

/** A dependency that did not answer, with the variable to check and the command that fixes it. */
export class PreflightError extends Error {
  constructor(readonly variable: string, where: string, fix: string) {
    super(`${where} is not answering (${variable}). Start it with:\n  ${fix}\nor point ${variable} at a running server.`);
    this.name = 'PreflightError';
  }
}

/** Creates the database behind `url` if missing; a server that does not answer is a PreflightError. */
export async function prepareDatabase(variable: string, url: string): Promise<void> {
  try {
    await ensureDatabase(url);
  } catch (err) {
    const t = parseMysqlUrl(url);
    if (isTransientDbError(err)) throw new PreflightError(variable, `MariaDB at ${t.host}:${t.port}`, START_MARIADB);
    throw err;
  }
}

/** Checks that NATS answers and has JetStream enabled. */
export async function checkNats(url: string): Promise<void> {
  let nc;
  try {
    nc = await connect({ servers: url.split(','), timeout: 3000, maxReconnectAttempts: 0, reconnect: false });
  } catch {
    throw new PreflightError('NATS_URL', `NATS at ${url}`, START_NATS);
  }
  try {
    const info = nc.info;
    if (info && info.jetstream === false) {
      throw new PreflightError('NATS_URL', `JetStream on ${url}`, `${START_NATS}   (the -js flag enables JetStream)`);
    }
  } finally {
    await nc.close();
  }
}
