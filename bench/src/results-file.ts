import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

const START = '<!-- bench:results:start -->';
const END = '<!-- bench:results:end -->';

/**
 * Writes a run's markdown between the generated-results markers of `path`,
 * keeping everything else (the hand-written profiles and before/after
 * notes). A file without markers gets them appended; a missing file is
 * created with just the run.
 */
export function writeResults(path: string, markdown: string): void {
  mkdirSync(dirname(path), { recursive: true });
  const block = `${START}\n${markdown}\n${END}`;
  const current = existsSync(path) ? readFileSync(path, 'utf8') : '';
  const start = current.indexOf(START);
  const end = current.indexOf(END);
  const next =
    start >= 0 && end > start
      ? `${current.slice(0, start)}${block}${current.slice(end + END.length)}`
      : `${current}${current === '' || current.endsWith('\n') ? '' : '\n'}${current === '' ? '' : '\n'}${block}\n`;
  writeFileSync(path, next);
}
