import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * Issue 25, "readable at a glance": no production line over 120 characters, Prettier's print width. Prettier cannot
 * break a string or a comment, so this holds what it cannot: long prose goes to a descriptions module (for example
 * services/bff/src/graphql/schema-descriptions.ts) or is split into concatenated pieces with the same value.
 * Production code is every .ts and .js file under services/*\/src, packages/*\/src, bench/src and scripts; tests and
 * the generated proto code (proto/gen) are not in those folders.
 */
const MAX_WIDTH = 120;
const root = join(__dirname, '..');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' || entry.name === 'dist' ? [] : sourceFiles(path);
    return /\.(ts|js)$/.test(entry.name) ? [path] : [];
  });
}

const workspaceSources = (parent: string) =>
  readdirSync(join(root, parent), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => join(root, parent, entry.name, 'src'))
    .filter((src) => readdirSync(join(src, '..')).includes('src'));

const folders = [...workspaceSources('services'), ...workspaceSources('packages'), join(root, 'bench', 'src')];
const files = [...folders.flatMap(sourceFiles), ...sourceFiles(join(root, 'scripts'))];

describe('production line width', () => {
  it('reads every workspace', () => {
    // A glob that matched nothing would make the next test pass vacuously.
    expect(folders.map((f) => relative(root, f))).toEqual(
      expect.arrayContaining(['services/bff/src', 'packages/platform/src', 'bench/src']),
    );
    expect(files.length).toBeGreaterThan(100);
  });

  it(`has no line over ${MAX_WIDTH} characters`, () => {
    const over = files.flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .flatMap((line, i) => (line.length > MAX_WIDTH ? [`${relative(root, file)}:${i + 1} (${line.length})`] : [])),
    );
    expect(over).toEqual([]);
  });
});
