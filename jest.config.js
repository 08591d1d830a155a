/**
 * One jest run for the whole monorepo, in three layers (docs/testing.md):
 * - unit: `*.unit.test.ts`, pure functions (domain, rules, mappers, schemas,
 *   policies, the repository's own files); no global setup, no MariaDB, no
 *   NATS, no process or port of ours (`npm run test:unit`, seconds).
 * - integration: every other `test/**\/*.test.ts`, one service or package on
 *   the real MariaDB and NATS (see packages/testkit); each file creates its
 *   own databases and stream, so workers never share state.
 * - system: the whole stack, `test/e2e/` and `*.system.test.ts`.
 * A new `*.test.ts` lands in integration: the layer that waits for MariaDB and
 * NATS, so a test needing them can never run without them.
 * Workspace packages are imported from their built dist/ (npm test builds first).
 * @type {import('jest').Config}
 */
const ignored = ['/node_modules/', '/dist/', '<rootDir>/test/faults/'];

/** What every layer shares: TypeScript through ts-jest, Node as the environment. */
const layer = {
  testEnvironment: 'node',
  roots: ['<rootDir>/services', '<rootDir>/packages', '<rootDir>/test'],
  // Transpiled file by file (tsconfig.jest.json: isolatedModules): `npm run lint` type-checks every test already,
  // and type-checking each file again in every jest worker cost about a third of the unit layer's time.
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.jest.json' }] },
};

/** Fails the run at once, with the fix, when MariaDB or NATS is not answering. */
const needsServers = { globalSetup: '<rootDir>/jest.global-setup.js' };

module.exports = {
  projects: [
    {
      ...layer,
      displayName: 'unit',
      testMatch: ['**/test/**/*.unit.test.ts'],
      testPathIgnorePatterns: ignored,
      // Refuses TCP connections: a unit test that needs a server fails at once, wherever it runs.
      setupFilesAfterEnv: ['<rootDir>/jest.unit-setup.js'],
    },
    {
      ...layer,
      ...needsServers,
      displayName: 'integration',
      testMatch: ['**/test/**/*.test.ts'],
      testPathIgnorePatterns: [...ignored, '\\.unit\\.test\\.ts$', '\\.system\\.test\\.ts$', '<rootDir>/test/e2e/'],
    },
    {
      ...layer,
      ...needsServers,
      displayName: 'system',
      testMatch: ['<rootDir>/test/e2e/**/*.test.ts', '**/test/**/*.system.test.ts'],
      testPathIgnorePatterns: ignored,
    },
  ],
  testTimeout: 60_000,
  // Three on the 2-core reference machine: its files wait on MariaDB, NATS, timers and child processes, so two
  // workers left the cores 18 % idle, and a third cut the run by a sixth (docs/decisions.md, "npm test's workers").
  maxWorkers: 3,
};
