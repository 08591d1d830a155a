import { parse as parseLossless } from 'lossless-json';

/** A request body read for graphql-js (`value`) and as the client wrote it (`exact`, every number a LosslessNumber). */
export interface ExactJson {
  value: unknown;
  exact: unknown;
}

/** lossless-json recurses per level and gives up (a RangeError) somewhere far deeper than this; JSON.parse does not. */
const MAX_ALIKE_DEPTH = 64;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
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

/**
 * Whether lossless-json would read this valid JSON text as JSON.parse does and refuse none of it: no number outside
 * a string (its text is what lossless-json keeps), no key given twice in one object (it refuses one with another
 * value), no key with an escape (it would be compared decoded) and no deep nesting. A false is only "not sure".
 */
function readsAlike(text: string): boolean {
  // The keys of each open object; null for an open array.
  const open: (string[] | null)[] = [];
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (code === QUOTE) {
      const end = stringEnd(text, i);
      let next = end + 1;
      while (isWhitespace(text.charCodeAt(next))) next += 1;
      if (text.charCodeAt(next) === COLON) {
        const key = text.slice(i + 1, end);
        const keys = open[open.length - 1];
        if (!keys || key.includes('\\') || keys.includes(key)) return false;
        keys.push(key);
      }
      i = end;
    } else if (code === OPEN_OBJECT || code === OPEN_ARRAY) {
      if (open.length === MAX_ALIKE_DEPTH) return false;
      open.push(code === OPEN_OBJECT ? [] : null);
    } else if (code === CLOSE_OBJECT || code === CLOSE_ARRAY) {
      open.pop();
    } else if (code === MINUS || (code >= ZERO && code <= NINE)) {
      return false;
    }
  }
  return true;
}

/**
 * Reads a body once when one reading is enough: JSON.parse's value is then also the exact one (no number in it,
 * nothing lossless-json would refuse). Otherwise lossless-json reads it too, as every body was read before
 * (issue 23). Throws whatever either reader throws on a text it refuses.
 */
export function parseExactJson(text: string): ExactJson {
  const value: unknown = JSON.parse(text);
  return { value, exact: readsAlike(text) ? value : parseLossless(text) };
}
