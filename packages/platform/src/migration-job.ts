import { z } from 'zod';
import { ConfigError, envSchemas, parseEnv } from './config';
import { createDb, describeMysqlUrl, type Migration } from './db';
import { createLogger } from './logger';
import { migrateWhenPossible } from './start-up';

const schema = z.object({ DATABASE_URL: envSchemas.mysqlUrl(), LOG_LEVEL: envSchemas.logLevel() });

/**
 * The body of a service's migration entry point (`migrate-main.ts`), run by
 * the Helm chart's migration hook Job (pre-install/pre-upgrade): applies
 * `migrations` to DATABASE_URL and resolves 0, so a release's schema is in
 * place before its pods roll. The service applies them at start too
 * (`migrate` takes a named lock, so the Job and replicas take turns); the
 * Job makes a failing migration stop the upgrade instead of crash-looping
 * new pods. An unreachable database or another process's migration is
 * waited for (the Job's activeDeadlineSeconds bounds it); SIGTERM stops the
 * wait. A bad variable or a failing migration resolves 1.
 */
export async function runMigrationJob(service: string, migrations: Record<string, Migration>, env: NodeJS.ProcessEnv): Promise<number> {
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
