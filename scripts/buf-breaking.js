#!/usr/bin/env node
// `buf breaking` of the working tree's protos against what they must stay
// compatible with: on a branch other than main, main's protos at the merge
// base (what the branch would change); on main, the latest release tag (v*) when there is
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

// The common directory, not --absolute-git-dir: in a linked worktree that is .git/worktrees/<name>,
// which holds no objects of its own, and buf refuses it as a git input.
const gitDir = out('rev-parse', '--path-format=absolute', '--git-common-dir');
if (!gitDir) {
  console.log('buf breaking: skipped (not a git checkout)');
  process.exit(0);
}
const branch = out('rev-parse', '--abbrev-ref', 'HEAD');
const tag = out('describe', '--tags', '--abbrev=0', '--match', 'v*');
// On a branch, main as it was where the branch left it (the merge base): what main gained since, the
// branch does not have yet, and its absence is no change the branch makes.
const base =
  branch !== 'main' && out('rev-parse', '--verify', '--quiet', 'main') ? out('merge-base', 'HEAD', 'main') : '';
const [rev, ref] = base ? [base, `ref=${base}`] : tag ? [tag, `tag=${tag}`] : ['HEAD', 'ref=HEAD'];
const against = base ? `main (merge base ${base.slice(0, 12)})` : rev;

if (!out('rev-parse', '--verify', '--quiet', `${rev}:proto/buf.yaml`)) {
  console.log(`buf breaking: skipped (${against} has no proto/buf.yaml)`);
  process.exit(0);
}
try {
  execFileSync(
    require.resolve('@bufbuild/buf/bin/buf'),
    ['breaking', 'proto', '--against', `${gitDir}#${ref},subdir=proto`],
    { cwd: root, stdio: 'inherit' },
  );
} catch {
  console.error(`buf breaking: the protos above break compatibility with ${against}`);
  process.exit(1);
}
console.log(`buf breaking: no breaking change against ${against}`);
