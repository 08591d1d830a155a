import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import {
  EVENT_TYPES,
  type BodegaEventData,
  type EventEnvelope,
  type EventType,
  type ProductoEventData,
} from '@inventario/platform';
import { shorten } from '../src/email/format';
import { createEmailRenderer, TEMPLATES_DIR } from '../src/email/templates';
import { EVENT_TYPES_WITHOUT_EMAIL, HANDLERS, type EventHandler } from '../src/handlers';
import { DESCRIPCION_MAX_CHARS, NINGUN_CAMPO_MODIFICADO } from '../src/handlers/records';
import { writePreviews } from '../src/preview-main';
import { sampleEnvelope } from '../src/sample-events';
import { SPEC_SUBJECTS } from './support/spec-subjects';

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

type UpdateType = 'ProductoActualizado' | 'BodegaActualizada';

/** A sample update event whose data is `data` over the sample's (camposModificados included). */
function updateEnvelope(type: UpdateType, data: Record<string, unknown>): EventEnvelope {
  const envelope = sampleEnvelope(type);
  return { ...envelope, data: { ...envelope.data, ...data } };
}

/** Renders an update event through its handler's real parsing path (camposModificados included). */
function renderUpdate(type: UpdateType, envelope: EventEnvelope) {
  return render(type, envelope);
}

/** The text part's lines that carry the "modificado" tag. */
function markedTextRows(text: string): string[] {
  return text.split('\n').filter((line) => line.includes('[modificado]'));
}

/** The HTML part's table rows that carry the "modificado" tag. */
function markedHtmlRows(html: string): string[] {
  return html.split('\n').filter((line) => line.includes('<tr') && line.includes('>modificado</span>'));
}

describe('email templates', () => {
  it('has one handler per emailed event type, named as docs/contract.md §6.1 names the consumers', () => {
    expect(HANDLERS.map((h) => [h.eventType, h.name])).toEqual([
      ['ProductoCreado', 'ProductoCreatedHandler'],
      ['ProductoActualizado', 'ProductoUpdatedHandler'],
      ['ProductoEliminado', 'ProductoDeletedHandler'],
      ['BodegaCreada', 'BodegaCreatedHandler'],
      ['BodegaActualizada', 'BodegaUpdatedHandler'],
      ['BodegaEliminada', 'BodegaDeletedHandler'],
      ['StockBajo', 'StockBajoHandler'],
      ['ReservaDescubierta', 'ReservaDescubiertaHandler'],
    ]);
  });

  it('emails every event type but those without email, and those have no handler', () => {
    const emailed: readonly EventType[] = HANDLERS.map((h) => h.eventType);
    const silent: readonly EventType[] = EVENT_TYPES_WITHOUT_EMAIL;
    expect([...emailed, ...silent].sort()).toEqual([...EVENT_TYPES].sort());
    expect(emailed.filter((type) => silent.includes(type))).toEqual([]);
  });

  it.each(HANDLERS.filter((h) => h.eventType !== 'StockBajo').map((h) => [h.eventType]))(
    "renders %s with the contract's title and the record's name as subject, the title as heading, the record id, name and date, in HTML and text",
    (type) => {
      const email = render(
        type,
        sampleEnvelope(type, { id: 4321, nombre: 'Almacén Ñ', at: new Date('2026-03-05T09:08:07Z') }),
      );
      expect(email.subject).toBe(`${SPEC_SUBJECTS[type]}: Almacén Ñ`);
      expect(email.html).toContain(`>${SPEC_SUBJECTS[type]}</h1>`);
      expect(email.text.split('\n')[0]).toBe(SPEC_SUBJECTS[type]);
      for (const part of [email.html, email.text]) {
        expect(part).toContain('4321');
        expect(part).toContain('Almacén Ñ');
        expect(part).toContain('5 de marzo de 2026, 09:08:07 UTC');
        expect(part).toContain('ana');
        expect(part).not.toMatch(/\{\{|\}\}/);
      }
      expect(email.html).toContain('<time datetime="2026-03-05T09:08:07Z">');
    },
  );

  it('renders StockBajo without names (none found) by ids: subject, heading, product and warehouse ids, units, threshold, operation, user and date', () => {
    const email = render('StockBajo', sampleEnvelope('StockBajo', { id: 4321, at: new Date('2026-03-05T09:08:07Z') }));
    expect(email.subject).toBe(`${SPEC_SUBJECTS.StockBajo}: producto 4321 en bodega 3`);
    expect(email.html).toContain(`>${SPEC_SUBJECTS.StockBajo}</h1>`);
    expect(email.text.split('\n')[0]).toBe(SPEC_SUBJECTS.StockBajo);
    expect(email.text).toContain(
      '\nProducto: 4321\nBodega: 3\nUnidades: 4\nUmbral mínimo: 5\nOperación: 9\nFecha: 5 de marzo de 2026, 09:08:07 UTC\nUsuario: ana\n',
    );
    for (const part of [email.html, email.text]) expect(part).not.toMatch(/\{\{|\}\}/);
    expect(email.html).toContain('<time datetime="2026-03-05T09:08:07Z">');
  });

  it('renders ReservaDescubierta with its referencia in the subject, the reservation id, what is missing per level, what it held, its expiry, user and date', () => {
    const email = render(
      'ReservaDescubierta',
      sampleEnvelope('ReservaDescubierta', { id: 77, at: new Date('2026-03-05T09:08:07Z') }),
    );
    expect(email.subject).toBe(`${SPEC_SUBJECTS.ReservaDescubierta}: pedido-1024`);
    expect(email.html).toContain(`>${SPEC_SUBJECTS.ReservaDescubierta}</h1>`);
    expect(email.text.split('\n')[0]).toBe(SPEC_SUBJECTS.ReservaDescubierta);
    expect(email.text).toContain(
      [
        '\nReserva: 77',
        'Referencia: pedido-1024',
        'Faltan: 3 unidades del producto 12 en la bodega 3',
        'Reservado: 4 unidades del producto 12 en la bodega 3; 2 unidades del producto 12 en la bodega 4',
        'Expiraba: 5 de marzo de 2026, 09:23:07 UTC',
        'Fecha: 5 de marzo de 2026, 09:08:07 UTC',
        'Usuario: ana\n',
      ].join('\n'),
    );
    for (const part of [email.html, email.text]) expect(part).not.toMatch(/\{\{|\}\}/);
    expect(email.html).toContain('<time datetime="2026-03-05T09:08:07Z">');
  });

  it('escapes a hostile referencia of a ReservaDescubierta in the HTML part and keeps it as typed in the text part', () => {
    const referencia = '<img src=x onerror="alert(1)">';
    const email = render('ReservaDescubierta', sampleEnvelope('ReservaDescubierta', { nombre: referencia }));
    expect(email.html).toContain('&lt;img src&#x3D;x onerror&#x3D;&quot;alert(1)&quot;&gt;');
    expect(email.html).not.toContain('<img');
    expect(email.text).toContain(`Referencia: ${referencia}`);
    expect(email.subject).toBe(`Reserva Descubierta: ${referencia}`);
  });

  it('shows the reserved and available units of a StockBajo whose threshold watches disponible, and only then', () => {
    const base = sampleEnvelope('StockBajo', { id: 4321, at: new Date('2026-03-05T09:08:07Z') });
    const envelope = {
      ...base,
      data: { ...base.data, cantidad: 10, operacionId: null, alertaSobre: 'DISPONIBLE', reservada: 7, disponible: 3 },
    };
    const email = render('StockBajo', envelope);
    expect(email.text).toContain(
      '\nUnidades: 10\nReservadas: 7\nDisponibles (vigiladas por el umbral): 3\nUmbral mínimo: 5\nOperación: ninguna (una reserva o un cambio del umbral)\n',
    );
    expect(email.html).toMatch(/>Disponibles \(vigiladas por el umbral\)<\/th><td[^>]*>3<\/td>/);
    const plain = render('StockBajo', base);
    expect(plain.text).not.toContain('Reservadas');
    expect(plain.html).not.toContain('Disponibles');
  });

  it('names the product and warehouse of a StockBajo email, in its subject and body, when they are found; HTML-escaped in the body', () => {
    const handler = handlerOf('StockBajo');
    const preparation = handler.prepare(JSON.stringify(sampleEnvelope('StockBajo', { id: 4321 })), 'Service');
    if (!preparation.ok) throw new Error(preparation.reason);
    expect(preparation.prepared.porBuscar).toEqual({ producto: 4321, bodega: 3 });
    const model = preparation.prepared.withNombres({ producto: 'Tornillo <M6>', bodega: 'Almacén Norte' });
    const email = renderer.render(handler.template, model);
    expect(email.subject).toBe('Stock Bajo: Tornillo <M6> en Almacén Norte');
    expect(email.text).toContain('\nProducto: Tornillo <M6> (4321)\nBodega: Almacén Norte (3)\n');
    expect(email.text).toContain('El stock de Tornillo <M6> (4321) en Almacén Norte (3) llegó');
    expect(email.html).toContain('>Tornillo &lt;M6&gt; (4321)</td>');
    expect(email.html).not.toContain('<M6>');
  });

  it("names a product's warehouse when found (its event gives the id), and asks for nothing when it has none", () => {
    const handler = handlerOf('ProductoCreado');
    const preparation = handler.prepare(JSON.stringify(sampleEnvelope('ProductoCreado')), 'Service');
    if (!preparation.ok) throw new Error(preparation.reason);
    const { bodegaId } = sampleEnvelope('ProductoCreado').data as ProductoEventData;
    expect(preparation.prepared.porBuscar).toEqual({ bodega: bodegaId });
    expect(
      renderer.render(handler.template, preparation.prepared.withNombres({ bodega: 'Bodega Central' })).text,
    ).toContain(`\nBodega: Bodega Central (${bodegaId})\n`);
    const sinBodega = handlerOf('ProductoActualizado').prepare(
      JSON.stringify(updateEnvelope('ProductoActualizado', { bodegaId: null })),
      'Service',
    );
    expect(sinBodega.ok && sinBodega.prepared.porBuscar).toEqual({});
  });

  it('says so in a StockBajo email when the event carries no threshold or operation, and when a threshold change crossed it', () => {
    const envelope = sampleEnvelope('StockBajo');
    const email = render('StockBajo', {
      ...envelope,
      data: { ...envelope.data, umbralMinimo: null, operacionId: undefined },
    });
    expect(email.text).toContain('\nUmbral mínimo: (sin umbral)\n');
    expect(email.text).toContain('\nOperación: (no incluida en el evento)\n');
    const cambio = render('StockBajo', { ...envelope, data: { ...envelope.data, operacionId: null } });
    expect(cambio.text).toContain('\nOperación: ninguna (cambio del umbral)\n');
  });

  it('reads both historical product variants and shows absent values in words', () => {
    const envelope = sampleEnvelope('ProductoCreado');
    // The second product form (docs/contract.md §5.3): cantidad and operacion, no cantidadEnStock or accion.
    const variant2 = {
      productoId: 5,
      nombre: 'Tuerca',
      descripcion: null,
      precio: 7,
      cantidad: 30,
      operacion: 'CREATE',
      usuario: 'luis',
      timestamp: '2026-11-22T14:03:07',
    };
    const email = render('ProductoCreado', { ...envelope, data: variant2 });
    expect(email.text).toContain('Cantidad en stock: 30');
    expect(email.text).toContain('Precio: 7.00');
    expect(email.text).toContain('Descripción: (sin descripción)');
    expect(email.text).toContain('Bodega: Sin bodega asignada');
  });

  it('says when a deletion event does not carry the name', () => {
    const envelope = sampleEnvelope('BodegaEliminada', { id: 9 });
    const email = render('BodegaEliminada', {
      ...envelope,
      data: { id: 9, usuario: 'ana', timestamp: '2026-11-22T14:03:07' },
    });
    expect(email.text).toContain('Nombre: (no incluido en el evento)');
  });

  it('escapes the user of a StockBajo in the HTML part', () => {
    const email = render('StockBajo', sampleEnvelope('StockBajo', { usuario: '<script>alert(1)</script>' }));
    expect(email.html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(email.html).not.toMatch(/<script/);
    expect(email.text).toContain('Usuario: <script>alert(1)</script>');
  });

  it('escapes every value in the HTML part', () => {
    const hostile = '<script>alert(1)</script>';
    const envelope = sampleEnvelope('BodegaActualizada', { nombre: hostile, usuario: `"'><img src=x>` });
    const email = render('BodegaActualizada', {
      ...envelope,
      data: { ...envelope.data, ubicacion: '<iframe src=//evil>' },
    });
    expect(email.html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(email.html).toContain('&lt;iframe src&#x3D;//evil&gt;');
    expect(email.html).toContain('&quot;&#x27;&gt;&lt;img src&#x3D;x&gt;');
    expect(email.html).not.toMatch(/<script|<iframe|<img/);
  });

  it('uses only escaping {{ }} expressions in HTML templates, never {{{ }}} or {{& }}', () => {
    const files = [
      ...readdirSync(TEMPLATES_DIR),
      ...readdirSync(path.join(TEMPLATES_DIR, 'partials')).map((f) => `partials/${f}`),
    ];
    const html = files.filter((f) => f.endsWith('.html.hbs'));
    expect(html).toHaveLength(HANDLERS.length + 2);
    for (const file of html)
      expect(readFileSync(path.join(TEMPLATES_DIR, file), 'utf8')).not.toMatch(/\{\{\{|\{\{~?\s*&/);
  });

  describe('update emails name the changed fields', () => {
    it('lists the changed product fields and marks their rows, in bold with a "modificado" tag, in HTML and text', () => {
      const envelope = updateEnvelope('ProductoActualizado', {
        precio: 99.9,
        cantidadEnStock: 7,
        cantidad: 7,
        camposModificados: ['precio', 'cantidadEnStock'],
      });
      const email = renderUpdate('ProductoActualizado', envelope);

      expect(email.text).toContain('\nCampos modificados: Precio, Cantidad en stock\n');
      expect(markedTextRows(email.text)).toEqual(['Precio [modificado]: 99.90', 'Cantidad en stock [modificado]: 7']);
      expect(email.text).toContain('\nNombre: Tornillo M6 inoxidable\n');

      expect(email.html).toContain('<strong>Campos modificados:</strong> Precio, Cantidad en stock</p>');
      const rows = markedHtmlRows(email.html);
      expect(rows).toHaveLength(2);
      expect(rows[0]).toMatch(/>Precio <span[^>]*>modificado<\/span><\/th><td[^>]*><strong>99\.90<\/strong><\/td>/);
      expect(rows[1]).toMatch(
        />Cantidad en stock <span[^>]*>modificado<\/span><\/th><td[^>]*><strong>7<\/strong><\/td>/,
      );
    });

    it('lists the changed warehouse fields and marks their rows', () => {
      const envelope = updateEnvelope('BodegaActualizada', {
        nombre: 'Bodega Sur',
        ubicacion: null,
        camposModificados: ['nombre', 'ubicacion'],
      });
      const email = renderUpdate('BodegaActualizada', envelope);

      expect(email.text).toContain('\nCampos modificados: Nombre, Ubicación\n');
      expect(markedTextRows(email.text)).toEqual([
        'Nombre [modificado]: Bodega Sur',
        'Ubicación [modificado]: (sin ubicación)',
      ]);
      expect(email.html).toContain('<strong>Campos modificados:</strong> Nombre, Ubicación</p>');
      expect(markedHtmlRows(email.html).map((row) => /<strong>([^<]*)<\/strong>/.exec(row)?.[1])).toEqual([
        'Bodega Sur',
        '(sin ubicación)',
      ]);
    });

    it('says that no value changed when the list is empty, and marks no row', () => {
      const email = renderUpdate('BodegaActualizada', updateEnvelope('BodegaActualizada', { camposModificados: [] }));
      expect(email.text).toContain(`\nCampos modificados: ${NINGUN_CAMPO_MODIFICADO}\n`);
      expect(email.html).toContain(`<strong>Campos modificados:</strong> ${NINGUN_CAMPO_MODIFICADO}</p>`);
      expect(markedTextRows(email.text)).toEqual([]);
      expect(markedHtmlRows(email.html)).toEqual([]);
    });

    it('reads variant 2 cantidad as the stock and shows a field it does not know by its name', () => {
      const envelope = updateEnvelope('ProductoActualizado', {
        camposModificados: ['cantidad', 'cantidadEnStock', 'color'],
      });
      const email = renderUpdate('ProductoActualizado', envelope);
      expect(email.text).toContain('\nCampos modificados: Cantidad en stock, color\n');
      expect(markedTextRows(email.text)).toEqual(['Cantidad en stock [modificado]: 480']);
    });

    it.each([['ProductoActualizado'], ['BodegaActualizada']] as Array<[UpdateType]>)(
      'renders %s without camposModificados (an older producer) with no changed-fields line and no marked row',
      (type) => {
        const { camposModificados: _sent, ...older } = sampleEnvelope(type).data as ProductoEventData | BodegaEventData;
        const envelope = { ...sampleEnvelope(type), data: older };
        for (const email of [render(type, envelope), renderUpdate(type, envelope)]) {
          expect(email.text).not.toContain('Campos modificados');
          expect(email.html).not.toContain('Campos modificados');
          expect(email.text).not.toContain('modificado');
          expect(email.html).not.toContain('modificado');
          expect(email.text).toContain('Así queda ahora:\n\nId: ');
        }
      },
    );

    it('escapes the changed field names in the HTML part', () => {
      const envelope = updateEnvelope('ProductoActualizado', { camposModificados: ['<img src=x onerror=alert(1)>'] });
      const email = renderUpdate('ProductoActualizado', envelope);
      expect(email.html).toContain(
        '<strong>Campos modificados:</strong> &lt;img src&#x3D;x onerror&#x3D;alert(1)&gt;</p>',
      );
      expect(email.html).not.toMatch(/<img/);
      expect(email.text).toContain('Campos modificados: <img src=x onerror=alert(1)>');
    });
  });

  describe('a long descripcion', () => {
    const head = `${'a'.repeat(DESCRIPCION_MAX_CHARS - 1)}<`;

    it.each([['ProductoCreado'], ['ProductoActualizado']] as Array<[EventType]>)(
      'is shown in %s emails as its first 2 000 characters and an ellipsis, escaped in HTML',
      (type) => {
        const envelope = sampleEnvelope(type);
        const descripcion = `${head}${'b'.repeat(3000)}`;
        const email = render(type, { ...envelope, data: { ...envelope.data, descripcion } });
        expect(email.text).toContain(`\nDescripción: ${head}…\n`);
        expect(email.html).toContain(`>${'a'.repeat(DESCRIPCION_MAX_CHARS - 1)}&lt;…</td>`);
        for (const part of [email.text, email.html]) expect(part).not.toContain('b'.repeat(10));
      },
    );

    it('is shown whole up to 2 000 characters', () => {
      const envelope = sampleEnvelope('ProductoCreado');
      const email = render('ProductoCreado', { ...envelope, data: { ...envelope.data, descripcion: `${head}` } });
      expect(email.text).toContain(`\nDescripción: ${head}\n`);
      expect(email.text).not.toContain('…');
    });

    it('is cut between characters, never inside one (an emoji is two UTF-16 units)', () => {
      expect(shorten('📦'.repeat(DESCRIPCION_MAX_CHARS + 1), DESCRIPCION_MAX_CHARS)).toBe(
        `${'📦'.repeat(DESCRIPCION_MAX_CHARS)}…`,
      );
      expect(shorten('abc de', 4)).toBe('abc…');
      expect(shorten('abcd', 4)).toBe('abcd');
    });
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
      expect(() =>
        createEmailRenderer(
          HANDLERS.map((h) => h.template),
          dir,
        ),
      ).toThrow(/bodega-creada\.txt\.hbs/);
    });

    it('refuses a missing template', () => {
      rmSync(path.join(dir, 'producto-eliminado.html.hbs'));
      expect(() =>
        createEmailRenderer(
          HANDLERS.map((h) => h.template),
          dir,
        ),
      ).toThrow(/producto-eliminado\.html\.hbs/);
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
