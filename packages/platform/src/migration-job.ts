import { z } from 'zod';
import { ConfigError, envSchemas, parseEnv } from './config';
import { createDb, describeMysqlUrl, type Migration } from './db';
import { createLogger } from './logger';
import { migrateWhenPossible } from './start-up';

const schema = z.object({ DATABASE_URL: envSchemas.mysqlUrl(), LOG_LEVEL: envSchemas.logLevel() });

/**
 * The Helm pre-upgrade migration Job's body (resolves the exit code): a
 * failing migration stops the upgrade instead of crash-looping new pods.
 * Waits for the database, bounded by the Job's activeDeadlineSeconds.
 */
export async function runMigrationJob(
  service: string,
  migrations: Record<string, Migration>,
  env: NodeJS.ProcessEnv,
): Promise<number> {
  let config;
  try {
    config = parseEnv(schema, env);
  } catch (err) {
    process.stderr.write(`${service} migrations: ${err instanceof ConfigError ? err.message : String(err)}\n`);
    return 1;
  }
  const logger = createLogger(`${service}-migrate`, config.LOG_LEVEL);
  const stopping = new AbortController();
  process.once('SIGTERM', () => stopping.abort());
  process.once('SIGINT', () => stopping.abort());
  const db = createDb(config.DATABASE_URL, { logger });
  const database = describeMysqlUrl(config.DATABASE_URL);
  try {
    await migrateWhenPossible(db, migrations, logger, stopping.signal);
    logger.info({ database }, 'database migrated');
    return 0;
  } catch (err) {
    logger.error({ database, err: err instanceof Error ? err.message : String(err) }, 'migrations failed');
    return 1;
  } finally {
    await db.destroy();
  }
}
