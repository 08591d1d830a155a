import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { EVENT_TYPES, type EventType } from '@inventario/platform';
import { createEmailRenderer, TEMPLATES_DIR } from '../src/email/templates';
import { HANDLERS, type EventHandler } from '../src/handlers';
import { writePreviews } from '../src/preview-main';
import { sampleEnvelope } from '../src/sample-events';

// The spec's subject table ("Email notifications").
const SUBJECTS: Record<EventType, string> = {
  ProductoCreado: 'Nuevo Producto Creado',
  ProductoActualizado: 'Producto Actualizado',
  ProductoEliminado: 'Producto Eliminado',
  BodegaCreada: 'Nueva Bodega Creada',
  BodegaActualizada: 'Bodega Actualizada',
  BodegaEliminada: 'Bodega Eliminada',
};

const renderer = createEmailRenderer(HANDLERS.map((h) => h.template));

function handlerOf(type: EventType): EventHandler {
  return HANDLERS.find((h) => h.eventType === type)!;
}

/** Renders `body` as `type` would be, failing the test if it does not parse. */
function render(type: EventType, body: unknown) {
  const handler = handlerOf(type);
  const preparation = handler.prepare(JSON.stringify(body), 'Service');
  if (!preparation.ok) throw new Error(preparation.reason);
  return renderer.render(handler.template, preparation.prepared.model);
}

describe('email templates', () => {
  it('has one handler per event type, named as ARCHITECTURE §5 names the consumers', () => {
    expect(HANDLERS.map((h) => [h.eventType, h.name])).toEqual([
      ['ProductoCreado', 'ProductoCreatedHandler'],
      ['ProductoActualizado', 'ProductoUpdatedHandler'],
      ['ProductoEliminado', 'ProductoDeletedHandler'],
      ['BodegaCreada', 'BodegaCreatedHandler'],
      ['BodegaActualizada', 'BodegaUpdatedHandler'],
      ['BodegaEliminada', 'BodegaDeletedHandler'],
    ]);
  });

  it.each(EVENT_TYPES.map((type) => [type]))("renders %s with the spec's subject, a heading, the record id, name and date, in HTML and text", (type) => {
    const email = render(type, sampleEnvelope(type, { id: 4321, nombre: 'Almacén Ñ', at: new Date('2026-03-05T09:08:07Z') }));
    expect(email.subject).toBe(SUBJECTS[type]);
    expect(email.html).toContain(`>${SUBJECTS[type]}</h1>`);
    expect(email.text.split('\n')[0]).toBe(SUBJECTS[type]);
    for (const part of [email.html, email.text]) {
      expect(part).toContain('4321');
      expect(part).toContain('Almacén Ñ');
      expect(part).toContain('5 de marzo de 2026, 09:08:07 UTC');
      expect(part).toContain('ana');
      expect(part).not.toMatch(/\{\{|\}\}/);
    }
    expect(email.html).toContain('<time datetime="2026-03-05T09:08:07Z">');
  });

  it('reads both historical product variants and shows absent values in words', () => {
    const envelope = sampleEnvelope('ProductoCreado');
    // Variant 2 of the spec: cantidad and operacion, no cantidadEnStock or accion.
    const variant2 = { productoId: 5, nombre: 'Tuerca', descripcion: null, precio: 7, cantidad: 30, operacion: 'CREATE', usuario: 'luis', timestamp: '2026-11-22T14:03:07' };
    const email = render('ProductoCreado', { ...envelope, data: variant2 });
    expect(email.text).toContain('Cantidad en stock: 30');
    expect(email.text).toContain('Precio: 7.00');
    expect(email.text).toContain('Descripción: (sin descripción)');
    expect(email.text).toContain('Bodega: Sin bodega asignada');
  });

  it('says when a deletion event does not carry the name', () => {
    const envelope = sampleEnvelope('BodegaEliminada', { id: 9 });
    const email = render('BodegaEliminada', { ...envelope, data: { id: 9, usuario: 'ana', timestamp: '2026-11-22T14:03:07' } });
    expect(email.text).toContain('Nombre: (no incluido en el evento)');
  });

  it('escapes every value in the HTML part', () => {
    const hostile = '<script>alert(1)</script>';
    const envelope = sampleEnvelope('BodegaActualizada', { nombre: hostile, usuario: `"'><img src=x>` });
    const email = render('BodegaActualizada', { ...envelope, data: { ...envelope.data, ubicacion: '<iframe src=//evil>' } });
    expect(email.html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(email.html).toContain('&lt;iframe src&#x3D;//evil&gt;');
    expect(email.html).toContain('&quot;&#x27;&gt;&lt;img src&#x3D;x&gt;');
    expect(email.html).not.toMatch(/<script|<iframe|<img/);
  });

  it('uses only escaping {{ }} expressions in HTML templates, never {{{ }}} or {{& }}', () => {
    const files = [...readdirSync(TEMPLATES_DIR), ...readdirSync(path.join(TEMPLATES_DIR, 'partials')).map((f) => `partials/${f}`)];
    const html = files.filter((f) => f.endsWith('.html.hbs'));
    expect(html).toHaveLength(HANDLERS.length + 2);
    for (const file of html) expect(readFileSync(path.join(TEMPLATES_DIR, file), 'utf8')).not.toMatch(/\{\{\{|\{\{~?\s*&/);
  });

  describe('broken templates stop the notifier at start', () => {
    let dir: string;

    beforeEach(() => {
      dir = mkdtempSync(path.join(tmpdir(), 'notifier-templates-'));
      cpSync(TEMPLATES_DIR, dir, { recursive: true });
    });

    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    it('names the file with a syntax error', () => {
      writeFileSync(path.join(dir, 'bodega-creada.txt.hbs'), '{{#> layout}}{{record.nombre}');
      expect(() => createEmailRenderer(HANDLERS.map((h) => h.template), dir)).toThrow(/bodega-creada\.txt\.hbs/);
    });

    it('refuses a missing template', () => {
      rmSync(path.join(dir, 'producto-eliminado.html.hbs'));
      expect(() => createEmailRenderer(HANDLERS.map((h) => h.template), dir)).toThrow(/producto-eliminado\.html\.hbs/);
    });
  });
});

describe('email preview', () => {
  let dir: string;

  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'notifier-preview-'));
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('writes an HTML and a text file per event type, plus a hostile name rendered harmless', () => {
    const files = writePreviews(dir).map((f) => path.basename(f));
    expect(files).toEqual(
      [...HANDLERS.map((h) => h.template), 'producto-creado-hostil'].flatMap((name) => [`${name}.html`, `${name}.txt`]),
    );
    const hostile = readFileSync(path.join(dir, 'producto-creado-hostil.html'), 'utf8');
    expect(hostile).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(hostile).not.toMatch(/<script|<img/);
  });
});
