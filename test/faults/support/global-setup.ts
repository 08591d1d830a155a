/**
 * jest globalSetup of the fault suite: starts the suite's private mariadbd
 * and exports its URL (suite-mariadb.ts). No check of the machine's shared
 * MariaDB or NATS: the fault tests use neither.
 */
import { startPrivateMariaDb } from './private-mariadb';
import { FAULTS_MYSQL_URL_VAR, suiteGlobal } from './suite-mariadb';

export default async function globalSetup(): Promise<void> {
  const mariadb = await startPrivateMariaDb();
  suiteGlobal.inventarioFaultsMariaDb = mariadb;
  process.env[FAULTS_MYSQL_URL_VAR] = mariadb.url;
  process.env.TEST_MYSQL_URL = mariadb.url;
}
