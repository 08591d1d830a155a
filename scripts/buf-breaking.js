#!/usr/bin/env node
// `buf breaking` of the working tree's protos against what they must stay
// compatible with: on a branch other than main, main's protos (what the
// branch would change); on main, the latest release tag (v*) when there is
// one, else HEAD, so an uncommitted breaking edit is caught before it is
// committed. Skipped, with a note, outside a git checkout or when the
// reference has no proto/ yet.
const { execFileSync, spawnSync } = require('node:child_process');
const path = require('node:path');

const root = path.join(__dirname, '..');
const out = (...args) => {
  const r = spawnSync('git', args, { cwd: root, encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : '';
};

const gitDir = out('rev-parse', '--absolute-git-dir');
if (!gitDir) {
  console.log('buf breaking: skipped (not a git checkout)');
  process.exit(0);
}
const branch = out('rev-parse', '--abbrev-ref', 'HEAD');
const tag = out('describe', '--tags', '--abbrev=0', '--match', 'v*');
const [against, ref] =
  branch !== 'main' && out('rev-parse', '--verify', '--quiet', 'main') ? ['main', 'branch=main'] : tag ? [tag, `tag=${tag}`] : ['HEAD', 'ref=HEAD'];

if (!out('rev-parse', '--verify', '--quiet', `${against}:proto/buf.yaml`)) {
  console.log(`buf breaking: skipped (${against} has no proto/buf.yaml)`);
  process.exit(0);
}
try {
  execFileSync(require.resolve('@bufbuild/buf/bin/buf'), ['breaking', 'proto', '--against', `${gitDir}#${ref},subdir=proto`], { cwd: root, stdio: 'inherit' });
} catch {
  console.error(`buf breaking: the protos above break compatibility with ${against}`);
  process.exit(1);
}
console.log(`buf breaking: no breaking change against ${against}`);
