import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger, writeLauncherRecord } from '@inventario/platform';
import { freePort, runCommand, serviceMain, waitFor, type CommandResult } from '@inventario/testkit';
import { loadConfig } from '../src/config';
import { createDownstream, type Downstream } from '../src/downstream/downstream';
import { createInventario } from '../src/inventario/inventario';
import type { Caller, InventarioApi } from '../src/inventario/model';
import { BODEGAS_EJEMPLO, describeSeedResult, PRODUCTOS_EJEMPLO, seedSampleData } from '../src/seed/datos-ejemplo';
import { NIVELES_EJEMPLO, OPERACIONES_EJEMPLO } from '../src/seed/libro-ejemplo';
import { seedTarget } from '../src/seed/seed-target';
import { startTestBackend, type TestBackend } from './support/stack';

/**
 * The sample data: `npm run seed` (the built seed-main.js) against both real
 * services, into the system it is aimed at and no other, with its ledger
 * (levels in three warehouses, an entry, a sale that leaves a level under
 * its threshold, a transfer, a reversed sale), and seedSampleData's
 * idempotence rules.
 */
const SEED_MAIN = serviceMain('bff', 'seed-main.js');
const caller: Caller = { usuario: 'prueba' };

let backend: TestBackend;
let downstream: Downstream;
let inventario: InventarioApi;
/** An empty LAUNCHER_DATA_DIR: no npm start of its own is running, unless a test writes its record. */
let dataDir: string;

function runSeed(env: Record<string, string>): Promise<CommandResult> {
  // LOG_LEVEL as unset: runCommand's default, warn, is the seed's own.
  return runCommand('seed', [SEED_MAIN], env);
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'seed-launcher-'));
  backend = await startTestBackend('seed');
  const config = loadConfig({
    BFF_USER: 'prueba',
    BFF_PASSWORD: 'prueba-secret',
    PRODUCTO_SVC_ADDR: backend.productoSvcAddr,
    BODEGA_SVC_ADDR: backend.bodegaSvcAddr,
  });
  downstream = createDownstream(config, createLogger('bff', process.env.TEST_LOG_LEVEL ?? 'silent'));
  inventario = createInventario(downstream);
}, 120_000);

afterAll(async () => {
  downstream?.close();
  await backend?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const CARGADOS =
  'Datos de ejemplo cargados: 3 bodegas nuevas, 10 productos nuevos y 12 operaciones nuevas en el libro de existencias\n';
const YA_CARGADOS = 'Los datos de ejemplo ya estaban cargados: no se creó nada\n';

describe('npm run seed', () => {
  const seedEnv = () => ({
    LAUNCHER_DATA_DIR: dataDir,
    PRODUCTO_SVC_ADDR: backend.productoSvcAddr,
    BODEGA_SVC_ADDR: backend.bodegaSvcAddr,
  });
  const sistema = (origen: string) =>
    `Sistema: producto-svc ${backend.productoSvcAddr}, bodega-svc ${backend.bodegaSvcAddr} (${origen})\n`;

  it('refuses (exit 2, nothing written) when it is aimed at nothing: no address, no port, no npm start running', async () => {
    const run = await runSeed({ LAUNCHER_DATA_DIR: dataDir });
    expect([run.code, run.stdout]).toEqual([2, '']);
    expect(run.stderr).toMatch(
      /^seed: no hay sistema al que cargar los datos: .*PRODUCTO_GRPC_PORT=<puerto> BODEGA_GRPC_PORT=<puerto> npm run seed/,
    );
    expect(await inventario.listBodegas(caller)).toEqual([]);
  });

  it('loads 3 warehouses, 10 products and their ledger as user "seed", naming the system first', async () => {
    expect(await runSeed(seedEnv())).toEqual({
      code: 0,
      stdout: sistema('PRODUCTO_SVC_ADDR / BODEGA_SVC_ADDR') + CARGADOS,
      stderr: '',
    });

    const bodegas = await inventario.listBodegas(caller);
    expect(bodegas.map((b) => b.nombre).sort()).toEqual(BODEGAS_EJEMPLO.map((b) => b.nombre).sort());
    const idDe = new Map(bodegas.map((b) => [b.id, b.nombre]));
    const productos = await inventario.listProductos(caller);
    expect(
      productos
        .map((p) => ({ nombre: p.nombre, bodega: p.bodegaId === null ? null : idDe.get(p.bodegaId) }))
        .sort((a, b) => a.nombre.localeCompare(b.nombre)),
    ).toEqual(
      PRODUCTOS_EJEMPLO.map((p) => ({ nombre: p.nombre, bodega: p.bodega })).sort((a, b) =>
        a.nombre.localeCompare(b.nombre),
      ),
    );

    // 13 records, 12 operations (7 levels set, an entry, two sales, a transfer, a reversal), and the StockBajo of the sale that left 7 hammers of 10.
    const events = await waitFor(
      async () => {
        const stored = await backend.events();
        return stored.length === 26 && stored;
      },
      '26 events (3 warehouses, 10 products, 12 operations, 1 StockBajo)',
      30_000,
    );
    expect(events.map((e) => e.body.data.usuario)).toEqual(Array(26).fill('seed'));
    const tipos = events.map((e) => e.body.eventType.split('.').at(-1));
    expect([
      tipos.filter((t) => t === 'MovimientoRegistrado').length,
      tipos.filter((t) => t === 'StockBajo').length,
    ]).toEqual([12, 1]);
  });

  it('leaves a ledger that shows its use: levels in all three warehouses, one under its threshold, a transfer, a reversal, and it verifies', async () => {
    const bodegaId = new Map((await inventario.listBodegas(caller)).map((b) => [b.nombre, b.id]));
    const productoId = new Map((await inventario.listProductos(caller)).map((p) => [p.nombre, p.id]));
    const martillo = await inventario.getExistencia(
      caller,
      bodegaId.get('Bodega Central')!,
      productoId.get('Martillo de carpintero')!,
    );
    expect(martillo).toMatchObject({ cantidad: 7, umbralMinimo: 10 });
    const tornillo = await inventario.existenciasDeProducto(caller, productoId.get('Tornillo hexagonal M6')!);
    expect(tornillo.porBodega.map((e) => [e.bodegaId, e.cantidad])).toEqual([
      [bodegaId.get('Bodega Central'), 180],
      [bodegaId.get('Almacén Norte'), 40],
    ]);
    const guantes = await inventario.getExistencia(
      caller,
      bodegaId.get('Depósito Sur')!,
      productoId.get('Guantes de trabajo')!,
    );
    expect(guantes.cantidad).toBe(200);
    const { items } = await inventario.listMovimientos(caller, { productoId: productoId.get('Guantes de trabajo')! });
    expect(items.map((l) => [l.tipo, l.motivo, l.cantidad, l.comentario])).toEqual([
      ['SALIDA', 'REVERSO', 30, 'Ejemplo: pedido 8813 anulado'],
      ['SALIDA', 'VENTA', -30, 'Ejemplo: pedido 8813'],
      ['AJUSTE', 'ASIGNACION', 200, null],
    ]);
    const ocupadas = (await inventario.listBodegas(caller)).filter((b) => b.ocupacion > 0);
    expect(ocupadas).toHaveLength(3);
    expect(await inventario.verificarExistencias(caller)).toMatchObject({ consistente: true, diferencias: [] });
    expect(NIVELES_EJEMPLO.length + OPERACIONES_EJEMPLO.length).toBe(12);
  });

  it('a second run creates nothing and says so, also when it follows the record of the npm start that runs this system', async () => {
    // The launcher's record names the system (this process stands in for the launcher: it is alive).
    writeLauncherRecord(dataDir, {
      pid: process.pid,
      productoSvcAddr: backend.productoSvcAddr,
      bodegaSvcAddr: backend.bodegaSvcAddr,
      api: 'http://127.0.0.1:1/api',
    });
    try {
      expect(await runSeed({ LAUNCHER_DATA_DIR: dataDir })).toEqual({
        code: 0,
        stdout: sistema(`npm start (pid ${process.pid})`) + YA_CARGADOS,
        stderr: '',
      });
    } finally {
      rmSync(join(dataDir, 'sistema.json'), { force: true });
    }
    expect(await inventario.listBodegas(caller)).toHaveLength(3);
    expect(await inventario.listProductos(caller)).toHaveLength(10);
  });

  it('follows the ports npm start was given (PRODUCTO_GRPC_PORT / BODEGA_GRPC_PORT), as npm start reads them', async () => {
    const port = (addr: string) => addr.split(':').at(-1)!;
    const run = await runSeed({
      LAUNCHER_DATA_DIR: dataDir,
      PRODUCTO_GRPC_PORT: port(backend.productoSvcAddr),
      BODEGA_GRPC_PORT: port(backend.bodegaSvcAddr),
    });
    expect(run).toEqual({
      code: 0,
      stdout: sistema('PRODUCTO_GRPC_PORT / BODEGA_GRPC_PORT') + YA_CARGADOS,
      stderr: '',
    });
  });

  it('exits 1 with one line naming both services when they cannot be reached', async () => {
    const [p, b] = [await freePort(), await freePort()];
    const run = await runSeed({
      LAUNCHER_DATA_DIR: dataDir,
      PRODUCTO_SVC_ADDR: `127.0.0.1:${p}`,
      BODEGA_SVC_ADDR: `127.0.0.1:${b}`,
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      new RegExp(
        `^seed: no se pudieron cargar los datos de ejemplo \\(producto-svc 127\\.0\\.0\\.1:${p}, bodega-svc 127\\.0\\.0\\.1:${b}\\): .*no está disponible.*\\n$`,
      ),
    );
  });

  it('exits 1 with one line naming a malformed address', async () => {
    expect(
      await runSeed({
        LAUNCHER_DATA_DIR: dataDir,
        PRODUCTO_SVC_ADDR: 'no es una dirección',
        BODEGA_SVC_ADDR: backend.bodegaSvcAddr,
      }),
    ).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'seed: invalid configuration: PRODUCTO_SVC_ADDR: must be host:port, dns:///host:port or ipv4:a.b.c.d:port,... (a fixed list)\n',
    });
  });
});

describe('seedTarget: the system the seed was aimed at, or a refusal', () => {
  const record = {
    pid: 1,
    productoSvcAddr: '127.0.0.1:60051',
    bodegaSvcAddr: '127.0.0.1:60052',
    api: 'http://127.0.0.1:18080/api',
  };
  it.each([
    [
      'both addresses',
      { PRODUCTO_SVC_ADDR: 'p:1', BODEGA_SVC_ADDR: 'b:2' },
      record,
      { productoSvcAddr: 'p:1', bodegaSvcAddr: 'b:2' },
    ],
    [
      'both ports',
      { PRODUCTO_GRPC_PORT: '60051', BODEGA_GRPC_PORT: '60052' },
      undefined,
      { productoSvcAddr: '127.0.0.1:60051', bodegaSvcAddr: '127.0.0.1:60052' },
    ],
    [
      'one port, the other at its npm start default',
      { PRODUCTO_GRPC_PORT: '60051' },
      undefined,
      { productoSvcAddr: '127.0.0.1:60051', bodegaSvcAddr: '127.0.0.1:50052' },
    ],
    [
      "nothing: the running npm start's record",
      {},
      record,
      { productoSvcAddr: '127.0.0.1:60051', bodegaSvcAddr: '127.0.0.1:60052' },
    ],
  ])('%s', (_name, env, launcher, expected) => {
    expect(seedTarget(env, launcher)).toMatchObject(expected);
  });

  it.each([
    ['nothing and no npm start', {}, /^no hay sistema al que cargar los datos/],
    [
      'one address alone (it would pair with a default of another system)',
      { PRODUCTO_SVC_ADDR: 'p:1' },
      /defina las dos/,
    ],
    [
      'addresses and ports at once',
      { PRODUCTO_SVC_ADDR: 'p:1', BODEGA_SVC_ADDR: 'b:2', PRODUCTO_GRPC_PORT: '1' },
      /una sola vez/,
    ],
    ['a port that is not one', { PRODUCTO_GRPC_PORT: '0x50' }, /^PRODUCTO_GRPC_PORT: debe ser un puerto/],
  ])('refuses %s', (_name, env, message) => {
    const target = seedTarget(env, undefined);
    expect('error' in target && target.error).toMatch(message);
  });
});

describe('seedSampleData', () => {
  it('creates again only a sample product that was deleted', async () => {
    const [martillo] = await inventario.listProductos(caller, { q: 'Martillo de carpintero' });
    await inventario.deleteProducto(caller, martillo!.id);
    // The product again, with its level and its sale (the old lines stay under the old id).
    expect(await seedSampleData(inventario, caller)).toEqual({
      bodegasCreadas: 0,
      productosCreados: 1,
      operacionesCreadas: 2,
    });
    expect(await inventario.listProductos(caller, { q: 'Martillo de carpintero' })).toHaveLength(1);
  });

  it('takes a warehouse whose name differs only in case and accents for the sample one', async () => {
    const norte = (await inventario.listBodegas(caller)).find((b) => b.nombre === 'Almacén Norte')!;
    await inventario.updateBodega(caller, norte.id, { nombre: 'ALMACEN NORTE' });
    expect(await seedSampleData(inventario, caller)).toEqual({
      bodegasCreadas: 0,
      productosCreados: 0,
      operacionesCreadas: 0,
    });
    expect(await inventario.listBodegas(caller)).toHaveLength(3);
  });

  it.each([
    [
      { bodegasCreadas: 0, productosCreados: 0, operacionesCreadas: 0 },
      'Los datos de ejemplo ya estaban cargados: no se creó nada',
    ],
    [
      { bodegasCreadas: 1, productosCreados: 1, operacionesCreadas: 1 },
      'Datos de ejemplo cargados: 1 bodega nueva, 1 producto nuevo y 1 operación nueva en el libro de existencias',
    ],
    [
      { bodegasCreadas: 0, productosCreados: 2, operacionesCreadas: 0 },
      'Datos de ejemplo cargados: 0 bodegas nuevas, 2 productos nuevos y 0 operaciones nuevas en el libro de existencias',
    ],
  ])('%j is reported as "%s"', (result, text) => {
    expect(describeSeedResult(result)).toBe(text);
  });
});
