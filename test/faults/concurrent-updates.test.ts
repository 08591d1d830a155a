/**
 * 50 concurrent PUTs of one product through the BFF (built processes, a
 * private nats-server): the stored product ends as exactly one of the
 * writes, whole (never one write's name with another's price), and the
 * stream holds exactly one `actualizado` event per successful write, in the
 * order the writes committed (the last one is the final state).
 */
import { isDeepStrictEqual } from 'node:util';
import { startPrivateNatsServer, type PrivateNatsServer } from '@inventario/testkit';
import { killAllServiceProcesses, startProcessStack, type ProcessStack } from './support/processes';

const WRITERS = 50;

let nats: PrivateNatsServer;
let stack: ProcessStack;

beforeAll(async () => {
  nats = await startPrivateNatsServer();
  stack = await startProcessStack({ label: 'f_conc', natsUrl: nats.url });
});

afterAll(async () => {
  await stack?.close();
  await killAllServiceProcesses();
  await nats?.dispose();
});

/** Write `i`: every updatable field carries `i`, so a mix of two writes is visible. */
function write(i: number, bodegas: number[]) {
  return {
    nombre: `Concurrente ${i}`,
    descripcion: `descripcion de la escritura ${i}`,
    precio: 100 + i + 0.25,
    cantidadEnStock: 1000 + i,
    bodegaId: bodegas[i % bodegas.length] as number,
  };
}

test('50 concurrent updates of one product: the final state is one whole write, one event per successful write', async () => {
  const bodegas: number[] = [];
  for (const nombre of ['Norte', 'Sur']) {
    const res = await stack.request('POST', '/api/bodegas', {
      body: { nombre: `${nombre} ${Date.now()}`, capacidad: 10 },
    });
    expect(res.status).toBe(201);
    bodegas.push(res.body.id as number);
  }
  const created = await stack.request('POST', '/api/productos', {
    body: { nombre: 'Original', precio: 1, cantidadEnStock: 1 },
  });
  expect(created.status).toBe(201);
  const id = created.body.id as number;
  const writes = Array.from({ length: WRITERS }, (_, i) => write(i, bodegas));

  const answers = await Promise.all(writes.map((body) => stack.request('PUT', `/api/productos/${id}`, { body })));

  const succeeded = answers.flatMap((res, i) => (res.status === 200 ? [i] : []));
  // Row locks serialise the writes; none has a reason to fail.
  expect(answers.map((res) => res.status)).toEqual(writes.map(() => 200));
  // Each answer is its own write, whole; but cantidadEnStock is the ledger total when the answer is read
  // (docs/contract.md §10.6), which a concurrent count may already have moved: one of the counted figures.
  const contadas = writes.map((w) => w.cantidadEnStock);
  answers.forEach((res, i) => {
    const { cantidadEnStock: _contada, ...propia } = writes[i]!;
    expect(res.body).toMatchObject({ id, ...propia });
    expect(contadas).toContain(res.body.cantidadEnStock);
  });

  const final = await stack.request('GET', `/api/productos/${id}`);
  expect(final.status).toBe(200);
  const fields = { ...(final.body as Record<string, unknown>) };
  for (const readOnly of ['id', 'fechaCreacion', 'fechaActualizacion', 'version']) delete fields[readOnly];
  const winner = writes.findIndex((w) => isDeepStrictEqual(w, fields));
  expect(winner).toBeGreaterThanOrEqual(0);
  // Every one of the 50 writes applied, one after another: 1 at creation, +1 each.
  expect(final.body.version).toBe(1 + writes.length);

  const updates = (await stack.settledEvents())
    .filter((e) => e.subject === `${stack.namespace.prefix}.producto.actualizado` && e.body.data.productoId === id)
    .map((e) => e.body.data);
  // One event per successful write: each write's fields appear in exactly one event.
  const writeOf = (data: Record<string, unknown>) => writes.findIndex((w) => w.nombre === data.nombre);
  expect(updates.map(writeOf).sort((a, b) => a - b)).toEqual(succeeded);
  for (const data of updates) {
    const w = writes[writeOf(data)];
    expect(data).toMatchObject({
      nombre: w?.nombre,
      descripcion: w?.descripcion,
      precio: w?.precio,
      cantidadEnStock: w?.cantidadEnStock,
      bodegaId: w?.bodegaId,
    });
  }
  // Commit order: the last event is the state that stayed.
  expect(writeOf(updates.at(-1) ?? {})).toBe(winner);
});
