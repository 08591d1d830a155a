import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { TestStack } from '@inventario/testkit/stack';
import { startTestStack } from './support/stack';
import { mismatches, parseAnswer, readmeBlocks, type Command } from './readme/readme-examples';

/**
 * The README runs top to bottom: its shell examples that call the API
 * (readme/readme-examples.ts says which), in order, in one bash, against a
 * fresh system (both services, the BFF with the README's admin/admin, real
 * MariaDB and NATS), with the documented address http://127.0.0.1:8080
 * replaced by the fresh BFF's. Variables the examples set (`B`, ids kept
 * with jq) carry over from block to block, as in a reader's terminal.
 * Every curl answer is recorded and compared with the answer the README
 * writes after its command: the status, the fields of the body, the
 * headers. So an example that no longer answers what the README says fails
 * here, and whoever changes the behaviour updates the README with it.
 */
const ROOT = join(__dirname, '..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const DOCUMENTED_BFF = 'http://127.0.0.1:8080';
const run = promisify(execFile);

/** What one curl call answered. */
interface Answer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
  text: string;
}

/**
 * curl as a reader runs it, but every call also records its headers and body (`-i` puts the headers in the body file
 * too), numbered in a file: a call inside `$(...)` runs in a subshell, where a shell variable would not count.
 */
const PRELUDE = `set -eu -o pipefail
curl() {
  local n=$(( $(cat "$RECORD/count" 2>/dev/null || echo 0) + 1 ))
  echo "$n" > "$RECORD/count"
  command curl -sS -D "$RECORD/$n.headers" -o "$RECORD/$n.body" "$@"
  cat "$RECORD/$n.body"
  printf '\\n'
}
`;

function answerOf(dir: string, n: number): Answer {
  const headerText = readFileSync(join(dir, `${n}.headers`), 'latin1');
  // The last response's head (curl -D writes each of them, e.g. a 100 Continue first).
  const head = headerText
    .trim()
    .split(/\r?\n\r?\n/)
    .at(-1)!
    .split(/\r?\n/);
  const status = Number(/^HTTP\/[\d.]+ (\d{3})/.exec(head[0]!)?.[1]);
  const headers = Object.fromEntries(
    head.slice(1).map((h) => {
      const colon = h.indexOf(':');
      return [h.slice(0, colon).trim().toLowerCase(), h.slice(colon + 1).trim()];
    }),
  );
  let text = readFileSync(join(dir, `${n}.body`), 'utf8');
  // With -i the body file starts with the headers.
  if (text.startsWith('HTTP/'))
    text = text
      .split(/\r?\n\r?\n/)
      .slice(1)
      .join('\n\n');
  let body: unknown;
  try {
    body = text.trim() === '' ? undefined : JSON.parse(text);
  } catch {
    body = text;
  }
  return { status, headers, body, text };
}

describe('the parsing of the README (readme-examples.ts)', () => {
  it('reads an answer: status, fields, headers, and leaves the free text', () => {
    expect(parseAnswer('# 201 {"id":1,"a":[1,"}"]}  ETag: "1"  Idempotent-Replayed: true — created')).toEqual({
      status: 201,
      body: { id: 1, a: [1, '}'] },
      headers: { etag: '"1"', 'idempotent-replayed': 'true' },
    });
    expect(parseAnswer('# Assign: not an answer')).toBeUndefined();
  });

  it('compares bodies by the fields the README writes, and can fail', () => {
    expect(mismatches({ id: 1, m: [{ a: 1 }] }, { id: 1, x: 2, m: [{ a: 1, b: 2 }] })).toEqual([]);
    expect(mismatches({ id: 1 }, { id: 2 })).toEqual(['.id: expected 1, got 2']);
    expect(mismatches([{ a: 1 }], [{ a: 1 }, { a: 2 }])).toEqual(['.: expected 1 items, got 2']);
    expect(mismatches({ c: '…' }, { c: null })).toEqual(['.c: expected a value, got null']);
    expect(mismatches({ c: '…' }, { c: 'MzE' })).toEqual([]);
  });

  it('finds the API examples, each curl command with its answer', () => {
    const commands = readmeBlocks(README).flatMap((b) => b.commands);
    expect(commands.filter((c) => c.curl).length).toBeGreaterThan(30);
    expect(commands.filter((c) => c.curl && !c.expected).map((c) => `README line ${c.line}: ${c.text}`)).toEqual([]);
  });
});

describe('the README, top to bottom, against a fresh system', () => {
  let stack: TestStack;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'readme-'));
    // As `npm start` runs it: the BFF authenticates through identidad-svc, admin/admin its first ADMIN.
    stack = await startTestStack('readme', {
      identidad: true,
      env: { BFF_USER: 'admin', BFF_PASSWORD: 'admin', RATE_LIMIT_PER_MINUTE: '0' },
    });
  }, 120_000);

  afterAll(async () => {
    await stack?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers every curl example as the README says, in order', async () => {
    const blocks = readmeBlocks(README);
    const commands: Command[] = blocks.flatMap((b) => b.commands);
    const script = PRELUDE + commands.map((c) => c.text.split(DOCUMENTED_BFF).join(stack.baseUrl)).join('\n') + '\n';

    // Not execFileSync: the BFF answering these calls runs in this process.
    const result = await run('bash', ['--noprofile', '--norc', '-c', script], {
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir, RECORD: dir },
      maxBuffer: 16 * 1024 * 1024,
    }).catch((err: { stderr?: string; code?: number }) => {
      throw new Error(`the README's examples stopped with exit code ${err.code}: ${err.stderr ?? ''}`);
    });
    expect(result.stderr).toBe('');

    const curls = commands.filter((c) => c.curl);
    const recorded = readdirSync(dir).filter((f) => f.endsWith('.body')).length;
    expect(recorded).toBe(curls.length);
    const problems = curls.flatMap((command, i) => {
      const answer = answerOf(dir, i + 1);
      const expected = command.expected!;
      const where = `README line ${command.line} (${command.text.split('\n')[0]!.slice(0, 100)})`;
      const found = [
        ...(answer.status === expected.status ? [] : [`status ${answer.status}, not ${expected.status}`]),
        ...(expected.body === undefined ? [] : mismatches(expected.body, answer.body)),
        ...Object.entries(expected.headers).flatMap(([name, value]) =>
          answer.headers[name] === value ? [] : [`header ${name}: ${answer.headers[name] ?? '(absent)'}, not ${value}`],
        ),
      ];
      return found.length === 0 ? [] : [`${where}: ${found.join('; ')}; the answer was ${answer.text.slice(0, 400)}`];
    });
    expect(problems).toEqual([]);
  }, 120_000);
});
