#!/usr/bin/env node
// `buf breaking` of the working tree's protos against main's. Skipped (with a
// note) where there is nothing to compare with: no git checkout, no local
// main branch, or main has no proto/ yet (the first commit).
const { execFileSync, spawnSync } = require('node:child_process');
const path = require('node:path');

const root = path.join(__dirname, '..');
function git(...args) {
  return spawnSync('git', args, { cwd: root, encoding: 'utf8' });
}

if (git('rev-parse', '--verify', '--quiet', 'main:proto/buf.yaml').status !== 0) {
  console.log('buf breaking: skipped (main has no proto/buf.yaml to compare against)');
  process.exit(0);
}
const buf = path.join(root, 'node_modules', '.bin', 'buf');
execFileSync(buf, ['breaking', 'proto', '--against', `${root}/.git#branch=main,subdir=proto`], { cwd: root, stdio: 'inherit' });
console.log('buf breaking: no breaking change against main');
