/**
 * lossless-json's syntax errors (lossless-json 4) in Spanish, the API's one language
 * (docs/contract.md §3.1): "Quoted object key expected but got '}' at position 9" becomes
 * "se esperaba el nombre de una propiedad entre comillas y se encontró '}' (posición 9)". The
 * position and the character found are kept: they are what lets a client find the mistake. A
 * message this table does not know (a later lossless-json's) is not echoed in English: it gets the
 * general text, with the position when it has one.
 */
const EXPECTED: readonly [RegExp, (m: RegExpExecArray) => string][] = [
  [/^Comma ',' expected after value/, () => "se esperaba una coma ',' tras el valor"],
  [/^Colon ':' expected after property name/, () => "se esperaban dos puntos ':' tras el nombre de la propiedad"],
  [/^JSON value expected/, () => 'se esperaba un valor JSON'],
  [/^Array item expected/, () => 'se esperaba un elemento de la lista'],
  [/^Expected end of input/, () => 'se esperaba el final del cuerpo'],
  [/^Invalid number '([^']*)', expecting a digit/, (m) => `número no válido '${m[1]}': se esperaba un dígito`],
  [/^End of string '"' expected/, () => `se esperaban las comillas '"' que cierran el texto`],
  [
    /^Quoted object key or end of object '}' expected/,
    () => "se esperaba el nombre de una propiedad entre comillas o el cierre del objeto '}'",
  ],
  [/^Quoted object key expected/, () => 'se esperaba el nombre de una propiedad entre comillas'],
  [/^Array item or end of array ']' expected/, () => "se esperaba un elemento de la lista o su cierre ']'"],
  [/^Object value expected after ':'/, () => "se esperaba un valor tras ':'"],
  [/^Invalid character '(.*)' at position/s, (m) => `carácter no válido '${m[1]}'`],
  [/^Invalid escape character '(.*)' at position/s, (m) => `secuencia de escape no válida '${m[1]}'`],
  [/^Invalid unicode character '(.*)' at position/s, (m) => `carácter unicode no válido '${m[1]}'`],
  [
    /^Duplicate key '(.*)' encountered at position (\d+)$/s,
    (m) => `la propiedad '${m[1]}' aparece dos veces con valores distintos (posición ${m[2]})`,
  ],
];

const GOT = / but got '(.*)' at position (\d+)$/s;
const END = / but reached end of input at position (\d+)$/;
const AT = / at position (\d+)$/;

/** The Spanish reason of a body that does not parse; `err` is what lossless-json's parse threw. */
export function motivoSintaxisJson(err: unknown): string {
  if (err instanceof RangeError) return 'el JSON está anidado a demasiada profundidad';
  const text = err instanceof Error ? err.message : String(err);
  const rule = EXPECTED.find(([pattern]) => pattern.test(text));
  const what = rule ? rule[1](rule[0].exec(text)!) : 'sintaxis no válida';
  if (/^Duplicate key/.test(text) && rule) return what;
  const got = GOT.exec(text);
  if (got) return `${what} y se encontró '${got[1]}' (posición ${got[2]})`;
  const end = END.exec(text);
  if (end) return `${what} y el cuerpo terminó (posición ${end[1]})`;
  const at = AT.exec(text);
  return at ? `${what} (posición ${at[1]})` : what;
}
