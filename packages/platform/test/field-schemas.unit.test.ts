/** The field building blocks every surface's schemas are made of (docs/contract.md §2.5, §7.2). */
import { z } from 'zod';
import {
  anulable,
  entero,
  FIELD_MENSAJES as M,
  idNumero,
  nombre,
  NUMBER_TEXT,
  parseChanges,
  parseFields,
  precio,
  PROTO_NUMBER,
  requerido,
  type NumberReader,
} from '@inventario/platform';
import { violationsOf } from '@inventario/testkit';

const CAMPOS = z.object({
  nombre: requerido(nombre()),
  precio: requerido(precio(NUMBER_TEXT)),
  cantidad: entero(PROTO_NUMBER, 0, 10, M.mayorOIgualQueCero),
  bodegaId: anulable(idNumero()),
});

describe('parseFields', () => {
  it('answers the parsed value: names trimmed, prices canonical, absent nullable fields null', () => {
    expect(parseFields(CAMPOS, { nombre: ' Silla ', precio: '1.500', cantidad: 3 })).toEqual({
      nombre: 'Silla',
      precio: '1.50',
      cantidad: 3,
      bodegaId: null,
    });
  });

  it('names every bad field once, with its first problem, in field order', () => {
    expect(
      violationsOf(() => parseFields(CAMPOS, { bodegaId: 0, cantidad: -1, precio: '1e-3', nombre: '   ' })),
    ).toEqual([
      { campo: 'nombre', mensaje: M.enBlanco },
      { campo: 'precio', mensaje: M.dosDecimales },
      { campo: 'cantidad', mensaje: M.mayorOIgualQueCero },
      { campo: 'bodegaId', mensaje: 'debe ser un entero positivo' },
    ]);
  });

  it("reads proto3's empty string as a required field left out, and a missing number as required", () => {
    expect(violationsOf(() => parseFields(CAMPOS, { nombre: '', precio: '' }))).toEqual([
      { campo: 'nombre', mensaje: M.obligatorio },
      { campo: 'precio', mensaje: M.obligatorio },
      { campo: 'cantidad', mensaje: M.obligatorio },
    ]);
  });

  it("refuses a value of another type with its reader's word", () => {
    expect(violationsOf(() => parseFields(CAMPOS, { nombre: 7, precio: 10, cantidad: '3' }))).toEqual([
      { campo: 'nombre', mensaje: M.texto },
      { campo: 'precio', mensaje: M.decimal },
      { campo: 'cantidad', mensaje: M.entero },
    ]);
  });

  it('reads numbers through any reader exactly: a JSON-like number object, as the BFF hands one over', () => {
    const json: NumberReader = {
      read: (v) => (typeof v === 'object' && v !== null && 'text' in v ? String(v.text) : undefined),
      tipo: M.numero,
    };
    const schema = z.object({ precio: precio(json), cantidad: entero(json, 1, 5) });
    expect(parseFields(schema, { precio: { text: '1e3' }, cantidad: { text: '5.0' } })).toEqual({
      precio: '1000.00',
      cantidad: 5,
    });
    expect(violationsOf(() => parseFields(schema, { precio: '1', cantidad: { text: '0' } }))).toEqual([
      { campo: 'precio', mensaje: M.numero },
      { campo: 'cantidad', mensaje: 'debe ser un entero positivo' },
    ]);
  });

  it('names an issue about the whole value after `root`', () => {
    expect(violationsOf(() => parseFields(CAMPOS, 'x', 'solicitud'))).toEqual([
      { campo: 'solicitud', mensaje: expect.any(String) },
    ]);
  });

  it('names an unknown key of a strict object with the given word', () => {
    expect(violationsOf(() => parseFields(z.strictObject({}), { otro: 1 }, 'cuerpo', 'no se admite'))).toEqual([
      { campo: 'otro', mensaje: 'no se admite' },
    ]);
  });
});

describe('parseChanges', () => {
  it('checks and answers only the keys present', () => {
    expect(parseChanges(CAMPOS, { precio: '-0' })).toEqual({ precio: '0.00' });
    expect(parseChanges(CAMPOS, { bodegaId: null })).toEqual({ bodegaId: null });
  });

  it('takes a present key left undefined (a masked field unset) as null: required fields refuse it', () => {
    expect(
      violationsOf(() => parseChanges(CAMPOS, { nombre: undefined, cantidad: undefined, bodegaId: undefined })),
    ).toEqual([
      { campo: 'nombre', mensaje: M.obligatorio },
      { campo: 'cantidad', mensaje: M.obligatorio },
    ]);
  });
});
