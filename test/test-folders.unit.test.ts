import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

/**
 * Issue 25, "a house to live in" (docs/testing.md, "Where a test belongs"): no workspace imports another one's
 * test/ folder. A helper the tests of several workspaces share lives in packages/testkit; one a workspace's tests
 * share among themselves stays in its own test/support/. The repository's own test/ counts as one more workspace.
 */
const root = join(__dirname, '..');

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' || entry.name === 'dist' ? [] : tsFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The workspace a path belongs to: `services/<name>`, `packages/<name>`, `bench`, or `.` (the repository's own). */
function workspaceOf(path: string): string {
  const parts = relative(root, path).split(sep);
  if ((parts[0] === 'services' || parts[0] === 'packages') && parts.length > 2) return `${parts[0]}/${parts[1]}`;
  return parts[0] === 'bench' ? 'bench' : '.';
}

/** The test/ folder `path` lies in, if any: `<workspace>/test`. */
function testFolderOf(path: string): string | undefined {
  const workspace = workspaceOf(path);
  const inside = relative(join(root, workspace), path).split(sep);
  return inside[0] === 'test' ? workspace : undefined;
}

/** Every relative module a file names (import, export ... from, import(), require(), jest.mock()). */
function relativeSpecifiers(text: string): string[] {
  const found = text.matchAll(
    /(?:\bfrom\s+|\bimport\s*\(\s*|\brequire\s*\(\s*|\bjest\.mock\s*\(\s*)['"](\.[^'"]*)['"]/g,
  );
  return [...found].map((m) => m[1] ?? '');
}

const folders = [
  ...['services', 'packages'].flatMap((parent) =>
    readdirSync(join(root, parent), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => join(root, parent, entry.name)),
  ),
  join(root, 'bench'),
  join(root, 'test'),
];

describe("no workspace imports another one's test/ folder", () => {
  it('finds the files it checks', () => {
    expect(relativeSpecifiers("import { a } from '../../services/bff/test/support/stack';")).toEqual([
      '../../services/bff/test/support/stack',
    ]);
    expect(testFolderOf(join(root, 'services', 'bff', 'test', 'support', 'stack'))).toBe('services/bff');
    expect(testFolderOf(join(root, 'services', 'bff', 'src', 'app'))).toBeUndefined();
    expect(testFolderOf(join(root, 'test', 'support', 'stack'))).toBe('.');
  });

  it('has no import across workspaces into a test/ folder', () => {
    const crossings = folders.flatMap(tsFiles).flatMap((file) =>
      relativeSpecifiers(readFileSync(file, 'utf8')).flatMap((specifier) => {
        const target = testFolderOf(resolve(dirname(file), specifier));
        return target !== undefined && target !== workspaceOf(file)
          ? [`${relative(root, file)} imports ${specifier}`]
          : [];
      }),
    );
    expect(crossings).toEqual([]);
  });
});
