import { runMigrationJob } from '@inventario/platform';
import { migrations } from './store/migrations';

/** The Helm chart's migration hook Job: applies identidad-svc's migrations and exits (platform's runMigrationJob). */
void runMigrationJob('identidad-svc', migrations, process.env).then((code) => {
  process.exitCode = code;
});
