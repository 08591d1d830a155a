#!/usr/bin/env node
// Writes the chart's NATS authorization (values.yaml, between the BEGIN and
// END lines of `nats.config`) from its one source,
// packages/local-servers/src/nats-authorization.ts. Run after changing a
// user's rights (`npm run chart:nats-authorization`);
// test/deploy/nats-permissions.test.ts fails while values.yaml differs.
const fs = require('node:fs');
const path = require('node:path');
const { chartAuthorizationYaml } = require('../packages/local-servers/dist/nats-authorization');

const file = path.join(__dirname, '..', 'deploy', 'helm', 'inventario', 'values.yaml');
const BEGIN = '    # BEGIN nats-authorization';
const END = '    # END nats-authorization';
const text = fs.readFileSync(file, 'utf8');
const begin = text.indexOf(BEGIN);
const end = text.indexOf(END);
if (begin < 0 || end < begin) {
  console.error(`${file}: no "${BEGIN.trim()}" ... "${END.trim()}" lines under nats.config`);
  process.exit(1);
}
const head = text.slice(0, text.indexOf('\n', begin) + 1);
const block = chartAuthorizationYaml('    ').join('\n');
fs.writeFileSync(file, `${head}${block}\n${text.slice(end)}`);
console.log(`${path.relative(process.cwd(), file)}: nats authorization written`);
