/**
 * The fault suite (npm run test:faults): slow tests that stop and restart
 * private instances of nats-server, mariadbd, SMTP and our own services.
 * Never touches the machine's shared MariaDB/NATS beyond creating its own
 * databases. Run by .ci/run after npm test.
 * @type {import('jest').Config}
 */
const base = require('./jest.config.js');

module.exports = {
  ...base,
  roots: ['<rootDir>/test/faults'],
  testMatch: ['**/test/faults/**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
  testTimeout: 600_000,
  maxWorkers: 1,
};
