import { runMigrationJob } from '@inventario/platform';
import { migrations } from './store/migrations';

/** The Helm chart's migration hook Job: applies bodega-svc's migrations and exits (platform's runMigrationJob). */
void runMigrationJob('bodega-svc', migrations, process.env).then((code) => {
  process.exitCode = code;
});
