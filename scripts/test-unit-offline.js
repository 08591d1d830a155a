// The check that the unit layer runs without MariaDB and NATS
// (`npm run test:unit:offline`, docs/testing.md): jest's unit project with the
// test servers' URLs on a closed port and, where Linux allows an unprivileged
// network namespace (`unshare -rn`), in one with no server at all, so not even
// a hard-coded 127.0.0.1:3306 answers. The machine's own MariaDB and NATS keep
// running for everyone else.
const { spawnSync } = require('node:child_process');

const env = {
  ...process.env,
  TEST_MYSQL_URL: 'mysql://root@127.0.0.1:1',
  TEST_NATS_URL: 'nats://127.0.0.1:1',
  DATABASE_URL: 'mysql://root@127.0.0.1:1/none',
  NATS_URL: 'nats://127.0.0.1:1',
};
const jest = [require.resolve('jest/bin/jest'), '-c', 'jest.unit.config.js', ...process.argv.slice(2)];
const isolated = spawnSync('unshare', ['-rn', 'true']).status === 0;
if (!isolated)
  console.log("unshare -rn is not available here: running with the test servers' URLs on a closed port only.");
const run = isolated
  ? spawnSync('unshare', ['-rn', process.execPath, ...jest], { env, stdio: 'inherit' })
  : spawnSync(process.execPath, jest, { env, stdio: 'inherit' });
process.exit(run.status ?? 1);
