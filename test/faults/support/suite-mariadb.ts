/**
 * The fault suite's own MariaDB: one private `mariadbd` (private-mariadb.ts)
 * for the whole run, started by jest.faults.config.js's globalSetup
 * (global-setup.ts) and disposed of by its globalTeardown, which jest runs
 * also when tests failed. Its server URL reaches the tests through
 * FAULTS_MYSQL_URL (and TEST_MYSQL_URL, so testkit's helpers agree). Tests
 * that stop MySQL start one more of their own.
 */
import type { PrivateMariaDb } from './private-mariadb';

export const FAULTS_MYSQL_URL_VAR = 'FAULTS_MYSQL_URL';

/** Server part of the suite's MySQL URL (append `/<database>`); throws when the suite's globalSetup did not run. */
export function faultsMysqlServer(): string {
  const url = process.env[FAULTS_MYSQL_URL_VAR];
  if (!url) {
    throw new Error(
      `${FAULTS_MYSQL_URL_VAR} is not set: run the fault tests with jest --config jest.faults.config.js, whose globalSetup starts the suite's private mariadbd (fault tests never use the machine's shared MariaDB)`,
    );
  }
  return url;
}

/** Where globalSetup leaves the server for globalTeardown (both run in jest's main process). */
export const suiteGlobal = globalThis as typeof globalThis & { inventarioFaultsMariaDb?: PrivateMariaDb };
