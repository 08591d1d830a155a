import { runMigrationJob } from '@inventario/platform';
import { migrations } from './store/migrations';

/** The Helm chart's migration hook Job: applies producto-svc's migrations and exits (platform's runMigrationJob). */
void runMigrationJob('producto-svc', migrations, process.env).then((code) => {
  process.exitCode = code;
});
