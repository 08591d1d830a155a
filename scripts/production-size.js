// The size of the production code, the figure a change must not grow (issue 25): the non-whitespace characters of
// every TypeScript source of the services and packages (services/*/src, packages/*/src), tests and declaration files
// aside; the generated protobuf code lives in proto/ and is not counted. packages/testkit is the tests' own code (what
// the tests of several workspaces share moves there), so it is counted apart, on its own line. Prints the total, then
// each workspace's share (`npm run size:production`, or with `-- --files` every file). Comments count like code.
const { readdirSync, readFileSync } = require('node:fs');
const { join, relative } = require('node:path');

const ROOT = join(__dirname, '..');

/** Every .ts file below `dir`, tests and declarations aside. */
function sources(dir) {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !/\.(test|d)\.ts$/.test(e.name))
    .map((e) => join(e.parentPath ?? e.path, e.name))
    .sort();
}

const sizes = [];
for (const group of ['services', 'packages']) {
  for (const workspace of readdirSync(join(ROOT, group)).sort()) {
    const src = join(ROOT, group, workspace, 'src');
    let files;
    try {
      files = sources(src);
    } catch {
      continue; // no src/
    }
    for (const file of files)
      sizes.push({
        workspace: `${group}/${workspace}`,
        file: relative(ROOT, file),
        chars: readFileSync(file, 'utf8').replace(/\s/g, '').length,
      });
  }
}

const TEST_CODE = 'packages/testkit';
const production = sizes.filter((s) => s.workspace !== TEST_CODE);
const testkit = sizes.filter((s) => s.workspace === TEST_CODE);
const sum = (list) => list.reduce((total, s) => total + s.chars, 0);
console.log(`production code: ${sum(production)} non-whitespace characters in ${production.length} files`);
console.log(`(${TEST_CODE}, test code: ${sum(testkit)} in ${testkit.length} files)`);
const byWorkspace = new Map();
for (const s of sizes) byWorkspace.set(s.workspace, (byWorkspace.get(s.workspace) ?? 0) + s.chars);
for (const [workspace, chars] of byWorkspace) if (workspace !== TEST_CODE) console.log(`  ${workspace}: ${chars}`);
if (process.argv.includes('--files')) for (const s of sizes) console.log(`    ${s.file}: ${s.chars}`);
