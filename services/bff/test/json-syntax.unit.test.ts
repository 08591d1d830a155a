/**
 * lossless-json's syntax errors reach clients in Spanish, with the position
 * and the character found (docs/contract.md §3.1), never in English.
 */
import { parse } from 'lossless-json';
import { motivoSintaxisJson } from '../src/http/json-syntax';

function motivo(text: string): string {
  try {
    parse(text);
  } catch (err) {
    return motivoSintaxisJson(err);
  }
  throw new Error(`${text} parsed`);
}

describe('motivoSintaxisJson', () => {
  test.each([
    ['{"a" 1}', "se esperaban dos puntos ':' tras el nombre de la propiedad y se encontró '1' (posición 5)"],
    ['{"a":}', "se esperaba un valor tras ':' (posición 5)"],
    ['[1,]', "se esperaba un elemento de la lista y se encontró ']' (posición 3)"],
    ['[1 2]', "se esperaba una coma ',' tras el valor y se encontró '2' (posición 3)"],
    ['1 2', "se esperaba el final del cuerpo y se encontró '2' (posición 2)"],
    ['{"a":1.}', "número no válido '1.': se esperaba un dígito y se encontró '}' (posición 7)"],
    ['"abc', `se esperaban las comillas '"' que cierran el texto y el cuerpo terminó (posición 4)`],
    ['{"a":"\\x"}', "secuencia de escape no válida '\\x' (posición 6)"],
    ['tru', "se esperaba un valor JSON y se encontró 't' (posición 0)"],
    [
      '{"a":1',
      "se esperaba el nombre de una propiedad entre comillas o el cierre del objeto '}' y el cuerpo terminó (posición 6)",
    ],
    ['[1', "se esperaba un elemento de la lista o su cierre ']' y el cuerpo terminó (posición 2)"],
    ['{"nombre": "a", "nombre": "b"}', "la propiedad 'nombre' aparece dos veces con valores distintos (posición 17)"],
  ])('%s: %s', (text, expected) => {
    expect(motivo(text)).toBe(expected);
  });

  test('a message it does not know is not echoed: the general text, with the position', () => {
    expect(motivoSintaxisJson(new SyntaxError('Unexpected thing at position 12'))).toBe(
      'sintaxis no válida (posición 12)',
    );
    expect(motivoSintaxisJson(new SyntaxError('Something new'))).toBe('sintaxis no válida');
  });
});
