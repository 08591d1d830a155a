/**
 * The fault suite (npm run test:faults): slow tests that stop and restart
 * private instances of nats-server, mariadbd, SMTP and our own services.
 * Never touches the machine's shared MariaDB/NATS: globalSetup starts one
 * private mariadbd for the whole run (its URL in FAULTS_MYSQL_URL) and
 * globalTeardown removes it, also when tests failed
 * (test/faults/support/suite-mariadb.ts). Run by .ci/run after npm test.
 * @type {import('jest').Config}
 */
module.exports = {
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.jest.json' }] },
  roots: ['<rootDir>/test/faults'],
  testMatch: ['**/test/faults/**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
  // Instead of the base check that the shared MariaDB and NATS answer: the suite uses neither.
  globalSetup: '<rootDir>/test/faults/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/faults/support/global-teardown.ts',
  testTimeout: 600_000,
  maxWorkers: 1,
};
