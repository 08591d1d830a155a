import { LosslessNumber } from 'lossless-json';

/** lossless-json recurses per level and gives up (a RangeError) somewhere far deeper than this; JSON.parse does not. */
const MAX_ALIKE_DEPTH = 64;

/** What losslessReading answers when it cannot tell: lossless-json must read the text itself. */
export const NOT_SURE: unique symbol = Symbol('not sure');

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const MINUS = 0x2d;
const ZERO = 0x30;
const NINE = 0x39;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

function isWhitespace(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;
}

/** The characters a JSON number is written with, once it has started with a minus or a digit. */
function isNumberCharacter(code: number): boolean {
  return (
    (code >= ZERO && code <= NINE) || code === 0x2e || code === 0x65 || code === 0x45 || code === 0x2b || code === MINUS
  );
}

/** The index of the quote that closes the string opened at `start`. */
function stringEnd(text: string, start: number): number {
  let end = text.indexOf('"', start + 1);
  for (;;) {
    let backslashes = 0;
    while (text.charCodeAt(end - 1 - backslashes) === BACKSLASH) backslashes += 1;
    if (backslashes % 2 === 0) return end;
    end = text.indexOf('"', end + 1);
  }
}

/** An object or array still open in the text, and where in it the scan is. */
interface Open {
  container: Record<string, unknown> | unknown[];
  /** The keys met so far; null for an array. */
  keys: Set<string> | null;
  key: string;
  index: number;
}

function currentOf(open: Open): unknown {
  return open.keys ? (open.container as Record<string, unknown>)[open.key] : (open.container as unknown[])[open.index];
}

function setCurrent(open: Open, value: unknown): void {
  if (open.keys) (open.container as Record<string, unknown>)[open.key] = value;
  else (open.container as unknown[])[open.index] = value;
}

/**
 * What lossless-json's `parse(text)` would give for a valid JSON `text` that JSON.parse read as `parsed`, or NOT_SURE.
 * The two readings are alike when no key is given twice in one object (lossless-json refuses one with another value),
 * no key has an escape (it compares keys decoded) and nesting is no deeper than 64 (it recurses and gives up far
 * deeper; JSON.parse does not). A number is what differs: lossless-json keeps its text, a LosslessNumber. With
 * `numbers`, each is put in its place in `parsed` (which is changed in place) as that LosslessNumber; without, any
 * number is NOT_SURE, and a value returned is `parsed` untouched. NOT_SURE is only "not sure", never "refused".
 */
export function losslessReading(text: string, parsed: unknown, numbers: boolean): unknown {
  let root = parsed;
  const open: Open[] = [];
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (code === QUOTE) {
      const end = stringEnd(text, i);
      let next = end + 1;
      while (isWhitespace(text.charCodeAt(next))) next += 1;
      if (text.charCodeAt(next) === COLON) {
        const key = text.slice(i + 1, end);
        const inside = open[open.length - 1];
        if (!inside?.keys || key.includes('\\') || inside.keys.has(key)) return NOT_SURE;
        inside.keys.add(key);
        inside.key = key;
        i = next;
      } else {
        i = end;
      }
    } else if (code === OPEN_OBJECT || code === OPEN_ARRAY) {
      if (open.length === MAX_ALIKE_DEPTH) return NOT_SURE;
      const inside = open[open.length - 1];
      const container = inside ? currentOf(inside) : root;
      // Not the container the text opens when an earlier key was given again (JSON.parse kept the last value).
      if (typeof container !== 'object' || container === null || Array.isArray(container) !== (code === OPEN_ARRAY))
        return NOT_SURE;
      open.push({
        container: container as Open['container'],
        keys: code === OPEN_OBJECT ? new Set() : null,
        key: '',
        index: 0,
      });
    } else if (code === CLOSE_OBJECT || code === CLOSE_ARRAY) {
      open.pop();
    } else if (code === COMMA) {
      open[open.length - 1]!.index += 1;
    } else if (code === MINUS || (code >= ZERO && code <= NINE)) {
      if (!numbers) return NOT_SURE;
      let end = i + 1;
      while (isNumberCharacter(text.charCodeAt(end))) end += 1;
      const number = new LosslessNumber(text.slice(i, end));
      const inside = open[open.length - 1];
      if (inside) setCurrent(inside, number);
      else root = number;
      i = end - 1;
    }
  }
  return root;
}
