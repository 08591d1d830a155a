import {
  integerFromNumberText,
  MAX_INT32,
  MAX_NUMBER_TEXT,
  NUMBER_MENSAJES,
  precioFromNumberText,
} from '../src/http/json-number';

describe('precioFromNumberText reads a JSON number exactly as DECIMAL(10,2)', () => {
  test.each([
    ['0', '0.00'],
    ['-0', '0.00'],
    ['7', '7.00'],
    ['19.9', '19.90'],
    ['19.90', '19.90'],
    ['19.900000', '19.90'],
    ['0.05', '0.05'],
    ['99999999.99', '99999999.99'],
    ['1e3', '1000.00'],
    ['1.5E2', '150.00'],
    ['1999e-2', '19.99'],
    ['2e+1', '20.00'],
    ['0.0000000000000000000000000001e28', '1.00'],
  ])('%s is accepted as %s', (text, canonical) => {
    expect(precioFromNumberText(text)).toEqual({ ok: canonical });
  });

  test.each([
    ['19.999999999999999999', 'admite como máximo 2 decimales'],
    ['0.001', 'admite como máximo 2 decimales'],
    ['1e-3', 'admite como máximo 2 decimales'],
    ['-1', 'no puede ser negativo'],
    ['-0.01', 'no puede ser negativo'],
    ['100000000', 'no puede superar 99999999.99'],
    ['99999999.999', 'admite como máximo 2 decimales'],
    ['1e8', 'no puede superar 99999999.99'],
    ['1e999999999999', 'no puede superar 99999999.99'],
    ['1e-999999999999', 'admite como máximo 2 decimales'],
    ['abc', 'debe ser un número'],
  ])('%s is rejected: %s', (text, mensaje) => {
    expect(precioFromNumberText(text)).toEqual({ mensaje });
  });
});

describe('integerFromNumberText reads whole numbers exactly', () => {
  test.each([
    ['0', 0, MAX_INT32, 0],
    ['5.0', 0, MAX_INT32, 5],
    ['5e2', 0, MAX_INT32, 500],
    ['2147483647', 0, MAX_INT32, MAX_INT32],
    ['4294967295', 1, 4_294_967_295, 4_294_967_295],
  ])('%s within [%d, %d] is %d', (text, min, max, value) => {
    expect(integerFromNumberText(text, min, max)).toEqual({ ok: value });
  });

  test.each([
    ['1.5', 0, MAX_INT32, 'debe ser un número entero'],
    ['-1', 0, MAX_INT32, 'no puede ser negativo'],
    ['0', 1, 10, 'debe ser un entero positivo'],
    ['-3', 1, 10, 'debe ser un entero positivo'],
    ['2147483648', 0, MAX_INT32, `no puede superar ${MAX_INT32}`],
    ['1e400', 0, MAX_INT32, `no puede superar ${MAX_INT32}`],
    ['9007199254740993', 0, MAX_INT32, `no puede superar ${MAX_INT32}`],
  ])('%s within [%d, %d] is rejected: %s', (text, min, max, mensaje) => {
    expect(integerFromNumberText(text, min, max)).toEqual({ mensaje });
  });
});

describe('number texts longer than MAX_NUMBER_TEXT are refused before any work on them', () => {
  /** 1 followed by 100 000 zeros and a 1: took seconds to trim with a regex; a body of 1 MiB of them, minutes. */
  const huge = `1${'0'.repeat(100_000)}1`;

  test('a 100 000-digit number is refused as too long, as a price and as a whole number', () => {
    expect(precioFromNumberText(huge)).toEqual({ mensaje: NUMBER_MENSAJES.demasiadoLargo });
    expect(integerFromNumberText(huge, 0, MAX_INT32)).toEqual({ mensaje: NUMBER_MENSAJES.demasiadoLargo });
    expect(precioFromNumberText(`${huge}.5`)).toEqual({ mensaje: NUMBER_MENSAJES.demasiadoLargo });
  });

  test('the limit still reads every serializer form of a valid value: exactly 64 characters is read exactly', () => {
    const padded = `1${'0'.repeat(59)}e-59`;
    expect(padded).toHaveLength(MAX_NUMBER_TEXT);
    expect(precioFromNumberText(padded)).toEqual({ ok: '1.00' });
    expect(integerFromNumberText(padded, 0, MAX_INT32)).toEqual({ ok: 1 });
    expect(precioFromNumberText(`0${padded}`)).toEqual({ mensaje: NUMBER_MENSAJES.demasiadoLargo });
  });
});
