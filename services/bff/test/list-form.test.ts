/**
 * Issue 14: the list of 1,000 products is made cheap (timestamps written
 * from their time value, one template per row, prepared list pages in
 * producto-svc), and its answer must stay the REST form byte for byte
 * (docs/contract.md §2.3). The expected text is built here from the
 * stored rows alone, read with mysql2 as text (`dateStrings`, DECIMAL as
 * its text) and written with lossless-json: nothing of the code under
 * test (mapping, rest-json, platform's formatLocalUtc, the services'
 * codecs) takes part in it.
 */
import { createConnection, type RowDataPacket } from 'mysql2/promise';
import { LosslessNumber, stringify } from 'lossless-json';
import { createDb, parseMysqlUrl, type Knex } from '@inventario/platform';
import { startTestBackend, type TestBackend } from './support/stack';
import { startBareBff, type BareBff } from './support/bare-bff';

const ROWS = 1000;
const PRECIOS = ['19.90', '7.00', '0.00', '99999999.99', '0.05', '1234.50', '10.10'];
const NOMBRES = [
  'Tornillo M8',
  'ñandú "comillas" \\ /',
  'separadores \u2028\u2029 control \u0001\u001f',
  'emoji 🍎 👩‍👩‍👧 𝄞',
  'salto\nde\tlínea',
];
const DESCRIPCIONES = [null, '', 'Acero inoxidable', "<b>&amp;</b> 'simple'", 'ü'.repeat(300)];
/** Stored times (UTC) across the calendar's edges: leap days, centuries, the DATETIME range's ends. */
const FECHAS = [
  '2026-11-22 14:03:07',
  '2000-02-29 23:59:59',
  '1999-12-31 00:00:00',
  '1900-03-01 00:00:00',
  '2100-02-28 12:30:05',
  '1000-01-01 00:00:00',
  '9999-12-31 23:59:59',
  '1970-01-01 00:00:00',
  '2024-02-29 09:08:07',
  '2038-01-19 03:14:08',
];

interface StoredRow extends RowDataPacket {
  id: number;
  nombre: string;
  descripcion: string | null;
  precio: string;
  cantidad_en_stock: number;
  bodega_id: number | null;
  fecha_creacion: string;
  fecha_actualizacion: string;
  version: number;
}

describe('GET /api/productos of 1,000 products', () => {
  let backend: TestBackend;
  let bff: BareBff;
  let db: Knex;

  beforeAll(async () => {
    backend = await startTestBackend('list_form');
    bff = await startBareBff({ PRODUCTO_SVC_ADDR: backend.productoSvcAddr, BODEGA_SVC_ADDR: backend.bodegaSvcAddr });
    db = createDb(backend.databaseUrls.producto);
    const rows = Array.from({ length: ROWS }, (_, i) => ({
      nombre: `${NOMBRES[i % NOMBRES.length]} ${i}`,
      descripcion: DESCRIPCIONES[i % DESCRIPCIONES.length],
      precio: PRECIOS[i % PRECIOS.length],
      cantidad_en_stock: i % 13 === 0 ? 2_147_483_647 : i * 7,
      bodega_id: i % 4 === 0 ? null : i % 9 === 0 ? 4_294_967_295 : (i % 10) + 1,
      fecha_creacion: FECHAS[i % FECHAS.length],
      fecha_actualizacion: FECHAS[(i * 3 + 1) % FECHAS.length],
      version: 1 + (i % 5),
    }));
    for (let i = 0; i < rows.length; i += 200) await db('productos').insert(rows.slice(i, i + 200));
  }, 120_000);

  afterAll(async () => {
    await db?.destroy();
    await bff?.close();
    await backend?.close();
  });

  /** The REST form of every stored product, in id order, from the rows as MariaDB writes them. */
  async function expectedList(): Promise<string> {
    const connection = await createConnection({
      ...parseMysqlUrl(backend.databaseUrls.producto),
      dateStrings: true,
      decimalNumbers: false,
    });
    try {
      const [rows] = await connection.query<StoredRow[]>('SELECT * FROM productos ORDER BY id');
      const local = (stored: string) => stored.replace(' ', 'T');
      return stringify(
        rows.map((row) => ({
          id: row.id,
          nombre: row.nombre,
          descripcion: row.descripcion,
          precio: new LosslessNumber(row.precio),
          // Its ledger total (docs/contract.md §10.6): rows written here by SQL have no ledger line.
          cantidadEnStock: 0,
          bodegaId: row.bodega_id,
          fechaCreacion: local(row.fecha_creacion),
          fechaActualizacion: local(row.fecha_actualizacion),
          version: row.version,
        })),
      ) as string;
    } finally {
      await connection.end();
    }
  }

  it('answers the REST form of every row byte for byte: field order, escapes, precio digits, timestamps', async () => {
    const expected = await expectedList();
    const res = await bff.request('GET', '/api/productos');

    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(ROWS);
    expect(res.text).toBe(expected);
    // The forms the contract spells out, seen in the answer itself.
    expect(res.text).toContain('"precio":7.00,');
    expect(res.text).toContain('"precio":99999999.99,');
    expect(res.text).toContain('"fechaCreacion":"1000-01-01T00:00:00"');
    expect(res.text).toContain('"fechaActualizacion":"9999-12-31T23:59:59"');
    expect(res.text).toContain('"fechaCreacion":"2000-02-29T23:59:59"');
  });

  it('answers each page of a paged read (limit, offset) as the same rows of the whole list', async () => {
    const whole = JSON.parse(await expectedList()) as unknown[];
    const res = await bff.request('GET', '/api/productos?limit=300&offset=650');
    expect(res.status).toBe(200);
    expect(res.body).toEqual(whole.slice(650, 950));
  });
});
