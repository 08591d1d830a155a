#!/usr/bin/env node
// `buf breaking` of the working tree's protos against what clients may
// already have: on a branch other than main, main's protos (what the branch
// would change); on main, the latest release tag (v*), since main compared
// with itself can never fail. Skipped, with a note, when there is nothing to
// compare with (no git checkout, no release yet, or no proto/ there).
const { execFileSync, spawnSync } = require('node:child_process');
const path = require('node:path');

const root = path.join(__dirname, '..');
const git = (...args) => spawnSync('git', args, { cwd: root, encoding: 'utf8' });
const out = (...args) => {
  const r = git(...args);
  return r.status === 0 ? r.stdout.trim() : '';
};

const branch = out('rev-parse', '--abbrev-ref', 'HEAD');
const gitDir = out('rev-parse', '--absolute-git-dir');
const against = branch && branch !== 'main' && out('rev-parse', '--verify', '--quiet', 'main') ? 'main' : out('describe', '--tags', '--abbrev=0', '--match', 'v*');

if (!gitDir || !against) {
  console.log('buf breaking: skipped (no release tag to compare main with yet)');
  process.exit(0);
}
if (git('rev-parse', '--verify', '--quiet', `${against}:proto/buf.yaml`).status !== 0) {
  console.log(`buf breaking: skipped (${against} has no proto/buf.yaml)`);
  process.exit(0);
}
const ref = against === 'main' ? 'branch=main' : `tag=${against}`;
try {
  execFileSync(require.resolve('@bufbuild/buf/bin/buf'), ['breaking', 'proto', '--against', `${gitDir}#${ref},subdir=proto`], { cwd: root, stdio: 'inherit' });
} catch {
  console.error(`buf breaking: the protos above break compatibility with ${against}`);
  process.exit(1);
}
console.log(`buf breaking: no breaking change against ${against}`);
