import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createLogger } from '@inventario/platform';
import { freePort, waitFor } from '@inventario/testkit';
import { loadConfig } from '../src/config';
import { createDownstream, type Downstream } from '../src/downstream/downstream';
import { createInventario } from '../src/inventario/inventario';
import type { Caller, InventarioApi } from '../src/inventario/model';
import { BODEGAS_EJEMPLO, describeSeedResult, PRODUCTOS_EJEMPLO, seedSampleData } from '../src/inventario/seed';
import { startTestBackend, type TestBackend } from './support/backend';

/**
 * The sample data: `npm run seed` (the built seed-main.js) against both real
 * services, and seedSampleData's idempotence rules.
 */
const SEED_MAIN = join(__dirname, '..', 'dist', 'seed-main.js');
const caller: Caller = { usuario: 'prueba' };

let backend: TestBackend;
let downstream: Downstream;
let inventario: InventarioApi;

interface SeedRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

function runSeed(env: Record<string, string>): Promise<SeedRun> {
  const child = spawn(process.execPath, [SEED_MAIN], { env: { PATH: process.env.PATH, ...env } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  // 'close', not 'exit': only then has all of the child's output been read.
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}

beforeAll(async () => {
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
});

describe('npm run seed', () => {
  const seedEnv = () => ({ PRODUCTO_SVC_ADDR: backend.productoSvcAddr, BODEGA_SVC_ADDR: backend.bodegaSvcAddr });

  it('loads 3 warehouses and 10 products as user "seed", printing one summary line', async () => {
    expect(await runSeed(seedEnv())).toEqual({
      code: 0,
      stdout: 'Datos de ejemplo cargados: 3 bodegas nuevas y 10 productos nuevos\n',
      stderr: '',
    });

    const bodegas = await inventario.listBodegas(caller);
    expect(bodegas.map((b) => b.nombre).sort()).toEqual(BODEGAS_EJEMPLO.map((b) => b.nombre).sort());
    const idDe = new Map(bodegas.map((b) => [b.id, b.nombre]));
    const productos = await inventario.listProductos(caller);
    expect(
      productos.map((p) => ({ nombre: p.nombre, bodega: p.bodegaId === null ? null : idDe.get(p.bodegaId) })).sort((a, b) => a.nombre.localeCompare(b.nombre)),
    ).toEqual(PRODUCTOS_EJEMPLO.map((p) => ({ nombre: p.nombre, bodega: p.bodega })).sort((a, b) => a.nombre.localeCompare(b.nombre)));

    const events = await waitFor(
      async () => {
        const stored = await backend.events();
        return stored.length === 13 && stored;
      },
      '13 events (3 warehouses, 10 products)',
      30_000,
    );
    expect(events.map((e) => e.body.data.usuario)).toEqual(Array(13).fill('seed'));
  });

  it('a second run creates nothing and says so', async () => {
    expect(await runSeed(seedEnv())).toEqual({
      code: 0,
      stdout: 'Los datos de ejemplo ya estaban cargados: no se creó nada\n',
      stderr: '',
    });
    expect(await inventario.listBodegas(caller)).toHaveLength(3);
    expect(await inventario.listProductos(caller)).toHaveLength(10);
  });

  it('exits 1 with one line naming both services when they cannot be reached', async () => {
    const [p, b] = [await freePort(), await freePort()];
    const run = await runSeed({ PRODUCTO_SVC_ADDR: `127.0.0.1:${p}`, BODEGA_SVC_ADDR: `127.0.0.1:${b}` });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(
      new RegExp(
        `^seed: no se pudieron cargar los datos de ejemplo \\(producto-svc 127\\.0\\.0\\.1:${p}, bodega-svc 127\\.0\\.0\\.1:${b}\\): .*no está disponible.*\\n$`,
      ),
    );
  });

  it('exits 1 with one line naming a malformed address', async () => {
    expect(await runSeed({ PRODUCTO_SVC_ADDR: 'no es una dirección' })).toEqual({
      code: 1,
      stdout: '',
      stderr: 'seed: invalid configuration: PRODUCTO_SVC_ADDR: must be host:port, dns:///host:port or ipv4:a.b.c.d:port,... (a fixed list)\n',
    });
  });
});

describe('seedSampleData', () => {
  it('creates again only a sample product that was deleted', async () => {
    const [martillo] = await inventario.listProductos(caller, { q: 'Martillo de carpintero' });
    await inventario.deleteProducto(caller, martillo!.id);
    expect(await seedSampleData(inventario, caller)).toEqual({ bodegasCreadas: 0, productosCreados: 1 });
    expect(await inventario.listProductos(caller, { q: 'Martillo de carpintero' })).toHaveLength(1);
  });

  it('takes a warehouse whose name differs only in case and accents for the sample one', async () => {
    const norte = (await inventario.listBodegas(caller)).find((b) => b.nombre === 'Almacén Norte')!;
    await inventario.updateBodega(caller, norte.id, { nombre: 'ALMACEN NORTE' });
    expect(await seedSampleData(inventario, caller)).toEqual({ bodegasCreadas: 0, productosCreados: 0 });
    expect(await inventario.listBodegas(caller)).toHaveLength(3);
  });

  it.each([
    [{ bodegasCreadas: 0, productosCreados: 0 }, 'Los datos de ejemplo ya estaban cargados: no se creó nada'],
    [{ bodegasCreadas: 1, productosCreados: 1 }, 'Datos de ejemplo cargados: 1 bodega nueva y 1 producto nuevo'],
    [{ bodegasCreadas: 0, productosCreados: 2 }, 'Datos de ejemplo cargados: 0 bodegas nuevas y 2 productos nuevos'],
  ])('%j is reported as "%s"', (result, text) => {
    expect(describeSeedResult(result)).toBe(text);
  });
});
