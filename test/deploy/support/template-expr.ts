/**
 * Evaluates the one-line value expressions of the chart's ConfigMap, Secret
 * and env `value:` entries (`{{ .Values.bff.metricsPort | quote }}`,
 * `{{ printf "dns:///%s:%d" ... | quote }}`, `{{ add 1 (...) | quote }}`),
 * so the values files can be run through the services' own config schemas.
 * Not a renderer: no control flow, and only the handful of functions those
 * expressions use; anything else throws, so a new kind of expression fails
 * the test instead of being guessed. `include` runs the TypeScript mirror of
 * the named helper, which the caller supplies.
 */

/** A Go integer (template literals, `int`, `int64`, `add`); plain JS numbers are Helm's float64 values. */
export class GoInt {
  constructor(readonly n: number) {}
}

export type Helper = (arg: unknown) => unknown;

/** The `.` and `$` of a template, plus its `$name := ...` variables. */
export interface Scope {
  dot: unknown;
  root: unknown;
  vars: Record<string, unknown>;
  helpers: Record<string, Helper>;
}

/** A field reads from `.` (base `.`), from `$` (base `$`), or from the variable `$<base>`. */
type Token =
  | { kind: 'string'; value: string }
  | { kind: 'number'; value: number }
  | { kind: 'field'; path: string[]; base: string }
  | { kind: 'ident'; name: string }
  | { kind: '(' | ')' | '|' };

function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < source.length) {
    const rest = source.slice(i);
    const space = /^\s+/.exec(rest);
    if (space) {
      i += space[0].length;
      continue;
    }
    const ch = rest[0] as string;
    if (ch === '(' || ch === ')' || ch === '|') {
      tokens.push({ kind: ch });
      i++;
      continue;
    }
    const str = /^"((?:[^"\\]|\\.)*)"/.exec(rest);
    if (str) {
      tokens.push({ kind: 'string', value: JSON.parse(`"${str[1]}"`) as string });
      i += str[0].length;
      continue;
    }
    const num = /^-?\d+(?![\w.])/.exec(rest);
    if (num) {
      tokens.push({ kind: 'number', value: Number(num[0]) });
      i += num[0].length;
      continue;
    }
    // `.a.b`, `.`, `$`, `$.a`, `$name`, `$name.a.b`
    const field = /^(\$[A-Za-z_]\w*|\$)?((?:\.[A-Za-z_]\w*)*)(\.?)/.exec(rest);
    if (field && (field[1] || field[2] || field[3])) {
      const path = (field[2] ?? '').split('.').filter(Boolean);
      const base = field[1] === undefined ? '.' : field[1] === '$' ? '$' : field[1].slice(1);
      tokens.push({ kind: 'field', path, base });
      i += field[0].length;
      continue;
    }
    const ident = /^[A-Za-z_]\w*/.exec(rest);
    if (ident) {
      tokens.push({ kind: 'ident', name: ident[0] });
      i += ident[0].length;
      continue;
    }
    throw new Error(`cannot read template expression at "${rest}"`);
  }
  return tokens;
}

function lookup(value: unknown, path: string[]): unknown {
  let node = value;
  for (const key of path) {
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/** Go's `%v` of a float64: shortest form, exponent from 1e21 up or for 1e6 and up with `%v` (strconv 'g', precision 6 rule). */
function goFloat(x: number): string {
  if (Number.isInteger(x) && Math.abs(x) < 1e6) return String(x);
  const exponent = Math.floor(Math.log10(Math.abs(x)));
  if (exponent < -4 || exponent >= 6) {
    const [mantissa, exp] = x.toExponential().split('e') as [string, string];
    const e = Number(exp);
    return `${mantissa}e${e < 0 ? '-' : '+'}${String(Math.abs(e)).padStart(2, '0')}`;
  }
  return String(x);
}

/** How a value prints (`quote`, `toString`, `%v`, `%s`). */
export function goString(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (value instanceof GoInt) return String(value.n);
  if (typeof value === 'number') return goFloat(value);
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return String(value);
  throw new Error(`cannot print ${JSON.stringify(value)}`);
}

function toInt(value: unknown): number {
  if (value instanceof GoInt) return value.n;
  if (typeof value === 'number') return Math.trunc(value);
  if (typeof value === 'string') return /^-?\d+$/.test(value) ? Number(value) : 0;
  if (typeof value === 'boolean') return value ? 1 : 0;
  return 0;
}

function empty(value: unknown): boolean {
  return (
    value === undefined ||
    value === null ||
    value === '' ||
    value === false ||
    value === 0 ||
    (value instanceof GoInt && value.n === 0)
  );
}

/** Go's url.QueryEscape (the template builtin `urlquery`): space becomes "+". */
export function queryEscape(text: string): string {
  return [...Buffer.from(text, 'utf8')]
    .map((byte) => {
      const c = String.fromCharCode(byte);
      if (/[A-Za-z0-9\-_.~]/.test(c)) return c;
      if (c === ' ') return '+';
      return `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
    })
    .join('');
}

function printf(format: string, args: unknown[]): string {
  let n = 0;
  return format.replace(/%([svd%])/g, (_m, verb: string) => {
    if (verb === '%') return '%';
    const arg = args[n++];
    if (verb === 'd') {
      if (!(arg instanceof GoInt))
        throw new Error(`printf %d of a non-integer ${JSON.stringify(arg)} prints %!d(float64=...)`);
      return String(arg.n);
    }
    return goString(arg);
  });
}

function call(name: string, args: unknown[], scope: Scope): unknown {
  switch (name) {
    case 'quote':
    case 'toString':
      return goString(args.at(-1));
    case 'int':
    case 'int64':
      return new GoInt(toInt(args[0]));
    case 'add':
      return new GoInt(args.reduce<number>((sum, a) => sum + toInt(a), 0));
    case 'mul':
      return new GoInt(args.reduce<number>((product, a) => product * toInt(a), 1));
    case 'printf':
      return printf(String(args[0]), args.slice(1));
    case 'dict': {
      const out: Record<string, unknown> = {};
      for (let i = 0; i < args.length; i += 2) out[String(args[i])] = args[i + 1];
      return out;
    }
    case 'required':
      if (empty(args[1])) throw new Error(`required: ${String(args[0])}`);
      return args[1];
    case 'default':
      return empty(args[1]) ? args[0] : args[1];
    case 'urlquery':
      return queryEscape(goString(args[0]));
    case 'replace':
      return goString(args[2]).split(goString(args[0])).join(goString(args[1]));
    case 'include': {
      const helper = scope.helpers[String(args[0])];
      if (!helper) throw new Error(`no mirror of the helper ${String(args[0])}`);
      return helper(args[1]);
    }
    default:
      throw new Error(`template function ${name} is not modelled`);
  }
}

/** Evaluates one pipeline (`x | f a | g`) from `tokens[start]` up to a `)` or the end. */
function pipeline(tokens: Token[], start: number, scope: Scope): [unknown, number] {
  let i = start;
  let value: unknown;
  let first = true;
  for (;;) {
    const operands: unknown[] = [];
    let fn: string | undefined;
    while (i < tokens.length && tokens[i]?.kind !== '|' && tokens[i]?.kind !== ')') {
      const t = tokens[i] as Token;
      if (t.kind === 'ident' && (t.name === 'true' || t.name === 'false')) {
        // A boolean literal, also as a function's argument (`dict "switch" true`).
        operands.push(t.name === 'true');
        i++;
      } else if (t.kind === 'ident' && fn === undefined && operands.length === 0) {
        fn = t.name;
        i++;
      } else if (t.kind === '(') {
        const [inner, next] = pipeline(tokens, i + 1, scope);
        operands.push(inner);
        i = next + 1;
      } else if (t.kind === 'string' || t.kind === 'number') {
        operands.push(t.kind === 'number' ? new GoInt(t.value) : t.value);
        i++;
      } else if (t.kind === 'field') {
        const special = t.base === '.' || t.base === '$';
        if (!special && !(t.base in scope.vars)) throw new Error(`undefined variable $${t.base}`);
        const base = t.base === '.' ? scope.dot : t.base === '$' ? scope.root : scope.vars[t.base];
        operands.push(lookup(base, t.path));
        i++;
      } else {
        throw new Error(`unexpected ${t.kind} in template expression`);
      }
    }
    if (!first) operands.push(value);
    if (fn !== undefined) value = call(fn, operands, scope);
    else if (operands.length === 1) value = operands[0];
    else throw new Error('a command of several operands needs a function');
    first = false;
    if (tokens[i]?.kind !== '|') return [value, i];
    i++;
  }
}

/** The value of one template expression (the text between `{{` and `}}`, without trim markers). */
export function evaluate(expression: string, scope: Scope): unknown {
  const tokens = tokenize(expression);
  const [value, end] = pipeline(tokens, 0, scope);
  if (end !== tokens.length) throw new Error(`unbalanced template expression: ${expression}`);
  return value;
}

/** A YAML scalar as the chart writes it: `{{ expr }}` evaluated and printed, a quoted or plain literal as is. */
export function scalar(text: string, scope: Scope): string {
  const action = /^\{\{-?\s*([\s\S]*?)\s*-?\}\}$/.exec(text.trim());
  if (action?.[1] !== undefined) return goString(evaluate(action[1], scope));
  const quoted = /^"((?:[^"\\]|\\.)*)"$/.exec(text.trim());
  if (quoted) return JSON.parse(`"${quoted[1]}"`) as string;
  if (text.includes('{{')) throw new Error(`a value mixing text and template actions is not modelled: ${text}`);
  return text.trim();
}

/** A template's top-level `{{- $name := expr -}}` bindings, evaluated in order into `scope.vars`. */
export function bindVariables(text: string, scope: Scope): void {
  for (const [, name, expression] of text.matchAll(/\{\{-?\s*\$([A-Za-z_]\w*) := (.+?)\s*-?\}\}/g)) {
    scope.vars[name as string] = evaluate(expression as string, scope);
  }
}
