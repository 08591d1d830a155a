/**
 * The README's shell examples as a test reads them: its `sh` blocks in
 * order, their commands, and the answer written after each `curl` command.
 *
 * - A block is run when one of its commands calls `curl` (the HTTP API),
 *   on its own or inside `$(...)`; the others (npm, docker, grpcurl, kind,
 *   nats, buf curl) need tools or machines the test does not have.
 * - A command is a line, or lines joined by a trailing `\`. A comment line
 *   `# <status> ...` right after a command is its answer; other comment
 *   lines are prose. Every `curl` command has an answer.
 * - An answer is `<status>`, then optionally a JSON value (the fields the
 *   body must hold: see `matches`), then optionally headers
 *   (`ETag: "3"`, `Idempotent-Replayed: true`), then optionally ` — ` and
 *   free text.
 */

export interface Expected {
  status: number;
  /** Absent: the body is not checked. */
  body?: unknown;
  headers: Record<string, string>;
}

export interface Command {
  /** 1-based line of the README where it starts. */
  line: number;
  text: string;
  /** Whether it calls curl (exactly once: one answer per command). */
  curl: boolean;
  expected?: Expected;
}

export interface Block {
  line: number;
  commands: Command[];
}

const CALLS_CURL = /(^|\$\(|\|\s*|;\s*|&&\s*)curl\s/;
const ANSWER = /^# (\d{3})(?=\s|$)(.*)$/;

/** The end of the JSON value starting at `text[0]` (`{` or `[`), strings and escapes respected. */
function jsonEnd(text: string): number {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  throw new Error(`unterminated JSON in an answer: ${text}`);
}

export function parseAnswer(comment: string): Expected | undefined {
  const match = ANSWER.exec(comment);
  if (!match) return undefined;
  let rest = match[2]!.trim();
  const expected: Expected = { status: Number(match[1]), headers: {} };
  if (rest.startsWith('{') || rest.startsWith('[')) {
    const end = jsonEnd(rest);
    expected.body = JSON.parse(rest.slice(0, end)) as unknown;
    rest = rest.slice(end);
  }
  const [headers = ''] = rest.split(' — ');
  for (const [, name, value] of headers.matchAll(/([A-Za-z][A-Za-z-]*): ("[^"]*"|\S+)/g))
    expected.headers[name!.toLowerCase()] = value!;
  return expected;
}

/** The runnable `sh` blocks of `markdown`, in order. */
export function readmeBlocks(markdown: string): Block[] {
  const lines = markdown.split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i] !== '```sh') continue;
    const start = i + 1;
    const body: string[] = [];
    for (i = start; i < lines.length && lines[i] !== '```'; i++) body.push(lines[i]!);
    const commands: Command[] = [];
    for (let j = 0; j < body.length; j++) {
      const line = body[j]!;
      if (line.trim() === '') continue;
      if (line.startsWith('#')) {
        const answer = parseAnswer(line);
        const last = commands.at(-1);
        if (answer && last && !last.expected && body[j - 1]?.startsWith('#') !== true) last.expected = answer;
        else if (answer) throw new Error(`README line ${start + j + 1}: an answer that follows no command: ${line}`);
        continue;
      }
      const first = j;
      let text = line;
      while (text.endsWith('\\') && j + 1 < body.length) text = `${text}\n${body[++j]}`;
      commands.push({ line: start + first + 1, text, curl: CALLS_CURL.test(text) });
    }
    if (commands.some((c) => c.curl)) blocks.push({ line: start, commands });
  }
  return blocks;
}

/**
 * Whether `actual` holds what `expected` says: an object its keys (others may be there too), an
 * array exactly its items in order, each item as expected; `"…"` any value but absent or null;
 * anything else equal.
 */
export function mismatches(expected: unknown, actual: unknown, at = ''): string[] {
  if (expected === '…')
    return actual === undefined || actual === null
      ? [`${at || '.'}: expected a value, got ${JSON.stringify(actual)}`]
      : [];
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual))
      return [`${at || '.'}: expected an array, got ${JSON.stringify(actual)?.slice(0, 200)}`];
    if (actual.length !== expected.length)
      return [`${at || '.'}: expected ${expected.length} items, got ${actual.length}`];
    return expected.flatMap((item, i) => mismatches(item, actual[i], `${at}[${i}]`));
  }
  if (typeof expected === 'object' && expected !== null) {
    if (typeof actual !== 'object' || actual === null || Array.isArray(actual))
      return [`${at || '.'}: expected an object, got ${JSON.stringify(actual)?.slice(0, 200)}`];
    return Object.entries(expected).flatMap(([key, value]) =>
      mismatches(value, (actual as Record<string, unknown>)[key], `${at}.${key}`),
    );
  }
  return Object.is(expected, actual)
    ? []
    : [`${at || '.'}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`];
}
