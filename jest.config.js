/**
 * One jest run for the whole monorepo. Tests talk to the real MariaDB and NATS
 * (see packages/testkit); each file creates its own databases and stream.
 * Workspace packages are imported from their built dist/ (npm test builds first).
 * @type {import('jest').Config}
 */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/services', '<rootDir>/packages', '<rootDir>/test'],
  testMatch: ['**/test/**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/', '<rootDir>/test/faults/'],
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.test.json' }] },
  globalSetup: '<rootDir>/jest.global-setup.js',
  testTimeout: 60_000,
  maxWorkers: 2,
};
