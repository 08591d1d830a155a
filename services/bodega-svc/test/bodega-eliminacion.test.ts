/**
 * The forced warehouse delete in bounded transactions (issue 21, items 6
 * and 7; docs/contract.md §2.7), on the whole service: the mark taken under
 * the version check freezes the warehouse (no update, no stock write), so a
 * conditional delete changes nothing unless the version matches when it
 * begins and cannot stop matching after; the stock is written out at most
 * 500 levels per transaction with the progress kept on the row, so any
 * later call resumes it and a keyed repeat replays it. The volume test
 * (60,000 levels through the BFF) is test/faults/forced-delete-bounded.test.ts.
 */
import { Server, ServerCredentials, status, type sendUnaryData, type ServerUnaryCall } from '@grpc/grpc-js';
import { currentVersionOf, errorReasonOf, USUARIO_BIN_METADATA_KEY, type Knex } from '@inventario/platform';
import { Producto, ProductoServiceService, TIPO_MOVIMIENTO_NAMES, type UnassignBodegaRequest } from '@inventario/proto';
import { ledgerProblems } from '@inventario/testkit';
import { asUser, grpcError, startTestService, type TestService } from './support/test-service';

const ENTRADA = TIPO_MOVIMIENTO_NAMES.value('ENTRADA');
const ANA = asUser('ana');
/** A delete that does not ask bodega-svc to unassign the products reports none. */
const SIN_DESASIGNAR = { productosDesasignados: [], totalDesasignados: 0 };

let svc: TestService;

beforeAll(async () => {
  svc = await startTestService('bodega_eliminacion');
});

afterAll(async () => {
  await svc?.close();
});

afterEach(async () => {
  expect(await ledgerProblems(svc.db)).toEqual([]);
});

let seq = 0;
async function bodega(capacidad = 1_000_000): Promise<number> {
  seq += 1;
  return (await svc.rpc.createBodega({ nombre: `Eliminación ${seq}`, capacidad })).bodega!.id;
}

/**
 * `niveles` levels of `cantidad` units in the warehouse, for products
 * `primero`.., as the API writes them: one ENTRADA operation whose lines
 * take each level from nothing to `cantidad` (version 1), and the occupancy.
 */
async function sembrarNiveles(
  db: Knex,
  bodegaId: number,
  primero: number,
  niveles: number,
  cantidad: number,
): Promise<void> {
  const fecha = '2026-05-06 07:08:09';
  const [operacionId] = await db('operaciones').insert({ tipo: 'ENTRADA', usuario: 'seed', fecha });
  await db.raw(
    `INSERT INTO movimientos (operacion_id, bodega_id, producto_id, tipo, motivo, cantidad, cantidad_anterior, cantidad_posterior, version, usuario, fecha)
     SELECT ?, ?, ? + seq - 1, 'ENTRADA', 'RECEPCION', ?, 0, ?, 1, 'seed', ? FROM seq_1_to_${niveles}`,
    [Number(operacionId), bodegaId, primero, cantidad, cantidad, fecha],
  );
  await db.raw(
    `INSERT INTO existencias (bodega_id, producto_id, cantidad, umbral_minimo, version, fecha_creacion, fecha_actualizacion)
     SELECT ?, ? + seq - 1, ?, NULL, 1, ?, ? FROM seq_1_to_${niveles}`,
    [bodegaId, primero, cantidad, fecha, fecha],
  );
  await db('bodegas')
    .where({ id: bodegaId })
    .increment('ocupacion', niveles * cantidad);
}

/** UpdateBodega of the fields given (the mask names them). */
function actualizar(id: number, campos: { nombre?: string; ubicacion?: string; capacidad?: number }) {
  return svc.rpc.updateBodega({
    bodega: { id, nombre: '', capacidad: 0, version: 0, ...campos },
    updateMask: Object.keys(campos),
  });
}

async function niveles(bodegaId: number): Promise<number> {
  const row = await svc
    .db('existencias')
    .where({ bodega_id: bodegaId })
    .count<{ n: number | string }[]>({ n: '*' })
    .first();
  return Number(row?.n ?? 0);
}

describe('MarkBodegaDeleting', () => {
  it('under a stale version changes nothing; under the current one it freezes the warehouse until it is deleted', async () => {
    const id = await bodega();
    await actualizar(id, { ubicacion: 'Vigo' });

    const stale = await grpcError(svc.rpc.markBodegaDeleting({ id, expectedVersion: 1 }));
    expect([stale.code, currentVersionOf(stale)]).toEqual([status.ABORTED, 2]);
    expect((await svc.db('bodegas').where({ id }).first()).eliminando_desde).toBeNull();

    const marked = await svc.rpc.markBodegaDeleting({ id, expectedVersion: 2 });
    expect(marked.bodega).toMatchObject({ id, version: 2, ubicacion: 'Vigo' });
    // Idempotent: the same check again, nothing more.
    await svc.rpc.markBodegaDeleting({ id, expectedVersion: 2 });

    const outbox = await svc.outboxCount();
    const update = await grpcError(actualizar(id, { ubicacion: 'Lugo' }));
    expect([update.code, errorReasonOf(update)]).toEqual([status.FAILED_PRECONDITION, 'BODEGA_ELIMINANDOSE']);
    const entrada = await grpcError(
      svc.stock.registrarMovimiento({ bodegaId: id, productoId: 7, tipo: ENTRADA, cantidad: 1, motivo: 0 }),
    );
    expect([entrada.code, errorReasonOf(entrada)]).toEqual([status.FAILED_PRECONDITION, 'BODEGA_ELIMINANDOSE']);
    const asignacion = await grpcError(svc.stock.asignarExistencia({ bodegaId: id, productoId: 7, cantidad: 3 }));
    expect([asignacion.code, errorReasonOf(asignacion)]).toEqual([status.FAILED_PRECONDITION, 'BODEGA_ELIMINANDOSE']);
    expect(await svc.outboxCount()).toBe(outbox);
    expect((await svc.rpc.getBodega({ id })).bodega).toMatchObject({ version: 2, ubicacion: 'Vigo' });

    // The delete the mark was for goes through, under the version it was taken at.
    expect(await svc.rpc.deleteBodega({ id, expectedVersion: 2, retirarExistencias: true })).toEqual({
      existenciasRetiradas: 0,
      unidadesRetiradas: 0,
      pendiente: false,
      ...SIN_DESASIGNAR,
    });
    expect((await grpcError(svc.rpc.getBodega({ id }))).code).toBe(status.NOT_FOUND);
  });

  it('a forced delete under a stale version writes nothing out and leaves the warehouse unmarked', async () => {
    const id = await bodega();
    await sembrarNiveles(svc.db, id, 1, 700, 2);
    await actualizar(id, { capacidad: 2_000_000 });
    const outbox = await svc.outboxCount();

    const err = await grpcError(
      svc.rpc.deleteBodega({ id, expectedVersion: 1, retirarExistencias: true, maxChunks: 1 }),
    );
    expect([err.code, currentVersionOf(err)]).toEqual([status.ABORTED, 2]);
    expect(await niveles(id)).toBe(700);
    expect((await svc.db('bodegas').where({ id }).first()).eliminando_desde).toBeNull();
    expect(await svc.outboxCount()).toBe(outbox);
  });
});

describe('DeleteBodega with retirar_existencias, in bounded transactions', () => {
  const NIVELES = 1_200;

  it('writes out 500 levels per transaction, max_chunks per call; any call resumes it, the row goes last, a keyed repeat replays', async () => {
    const id = await bodega();
    await sembrarNiveles(svc.db, id, 1_000, NIVELES, 3);
    expect(await ledgerProblems(svc.db)).toEqual([]);

    const first = await svc.rpc.deleteBodega(
      { id, retirarExistencias: true, maxChunks: 1, requestId: 'borrar-1' },
      ANA,
    );
    expect(first).toEqual({ existenciasRetiradas: 500, unidadesRetiradas: 1_500, pendiente: true, ...SIN_DESASIGNAR });
    // Half-way: the warehouse is there, marked, and its stock agrees with its ledger.
    expect(await niveles(id)).toBe(NIVELES - 500);
    expect((await svc.rpc.getBodega({ id })).bodega).toMatchObject({ id, ocupacion: (NIVELES - 500) * 3 });
    expect(await ledgerProblems(svc.db)).toEqual([]);
    const update = await grpcError(actualizar(id, { nombre: 'Otra' }));
    expect(errorReasonOf(update)).toBe('BODEGA_ELIMINANDOSE');

    // Another caller, without a key, goes on from there: the figures are the deletion's, not the call's.
    expect(await svc.rpc.deleteBodega({ id, retirarExistencias: true, maxChunks: 1 })).toEqual({
      existenciasRetiradas: 1_000,
      unidadesRetiradas: 3_000,
      pendiente: true,
      ...SIN_DESASIGNAR,
    });

    const done = await svc.rpc.deleteBodega({ id, retirarExistencias: true, requestId: 'borrar-1' }, ANA);
    expect(done).toEqual({
      existenciasRetiradas: NIVELES,
      unidadesRetiradas: NIVELES * 3,
      pendiente: false,
      ...SIN_DESASIGNAR,
    });
    expect((await grpcError(svc.rpc.getBodega({ id }))).code).toBe(status.NOT_FOUND);
    expect(await niveles(id)).toBe(0);

    // One operation of at most 500 lines per transaction.
    const operaciones = await svc
      .db('movimientos')
      .where({ bodega_id: id, motivo: 'BODEGA_ELIMINADA' })
      .groupBy('operacion_id')
      .orderBy('operacion_id')
      .select<{ n: number | string }[]>(svc.db.raw('COUNT(*) AS n'));
    expect(operaciones.map((o) => Number(o.n))).toEqual([500, 500, 200]);

    // A repeat under the key replays the whole deletion's figures (max_chunks is not compared).
    expect(
      await svc.rpc.deleteBodega({ id, retirarExistencias: true, maxChunks: 3, requestId: 'borrar-1' }, ANA),
    ).toEqual(done);
    // The same key for another request is refused before anything is touched.
    const other = await bodega();
    const reused = await grpcError(
      svc.rpc.deleteBodega({ id: other, retirarExistencias: true, requestId: 'borrar-1' }, ANA),
    );
    expect(reused.code).toBe(status.INVALID_ARGUMENT);
    expect((await svc.db('bodegas').where({ id: other }).first()).eliminando_desde).toBeNull();

    const eliminadas = (await svc.publishedEvents()).filter(
      (e) => e.body.eventType.endsWith('BodegaEliminada') && e.body.subject === `/bodegas/${id}`,
    );
    expect(eliminadas).toHaveLength(1);
  });
});

/**
 * A producto-svc whose UnassignBodega unassigns `asignados` products of a warehouse, 2 per chunk,
 * keeping each key's report as the real one does (the whole operation's, replayed once complete);
 * a warehouse in `caidas` answers UNAVAILABLE. Every request is recorded with its caller.
 */
async function startProductoSvcDesasignador(asignados: Map<number, number[]>, caidas: Set<number>) {
  const server = new Server();
  const peticiones: { bodegaId: number; requestId: string; maxChunks: number; usuario: string }[] = [];
  const informes = new Map<string, { ids: number[]; complete: boolean }>();
  server.addService(ProductoServiceService, {
    unassignBodega: (call: ServerUnaryCall<UnassignBodegaRequest, object>, callback: sendUnaryData<object>) => {
      const { bodegaId, requestId, maxChunks } = call.request;
      const usuario = (call.metadata.get(USUARIO_BIN_METADATA_KEY)[0] as Buffer | undefined)?.toString('utf8') ?? '';
      peticiones.push({ bodegaId, requestId: requestId ?? '', maxChunks, usuario });
      if (caidas.has(bodegaId)) return callback({ code: status.UNAVAILABLE, details: 'producto-svc caído' });
      const previo = informes.get(`${usuario}/${requestId}`) ?? { ids: [], complete: false };
      const quedan = asignados.get(bodegaId) ?? [];
      const ahora = previo.complete ? [] : quedan.splice(0, maxChunks > 0 ? maxChunks * 2 : quedan.length);
      const informe = { ids: [...previo.ids, ...ahora], complete: quedan.length === 0 };
      if (requestId) informes.set(`${usuario}/${requestId}`, informe);
      const productos = informe.ids.map((id) => Producto.fromPartial({ id, nombre: `Producto ${id}`, version: 2 }));
      callback(null, { productos, totalUnassigned: informe.ids.length, complete: informe.complete });
    },
  });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))),
  );
  return {
    address: `127.0.0.1:${port}`,
    peticiones,
    close: () => new Promise<void>((resolve) => server.tryShutdown(() => resolve())),
  };
}

describe('DeleteBodega with desasignar_productos: bodega-svc unassigns the products through producto-svc first', () => {
  const asignados = new Map<number, number[]>();
  const caidas = new Set<number>();
  let productoSvc: Awaited<ReturnType<typeof startProductoSvcDesasignador>>;
  let conProductoSvc: TestService;

  beforeAll(async () => {
    productoSvc = await startProductoSvcDesasignador(asignados, caidas);
    conProductoSvc = await startTestService('bodega_desasignar', { env: { PRODUCTO_SVC_ADDR: productoSvc.address } });
  });

  afterAll(async () => {
    await conProductoSvc?.close();
    await productoSvc?.close();
  });

  async function actualizarEn(id: number): Promise<void> {
    await conProductoSvc.rpc.updateBodega({
      bodega: { id, nombre: '', capacidad: 0, version: 0, ubicacion: 'Otra' },
      updateMask: ['ubicacion'],
    });
  }

  async function nivelesEn(bodegaId: number): Promise<number> {
    const row = await conProductoSvc
      .db('existencias')
      .where({ bodega_id: bodegaId })
      .count<{ n: number | string }[]>({ n: '*' })
      .first();
    return Number(row?.n ?? 0);
  }

  it('one chunk of products per call under the key (pendiente, no stock touched), then the stock; the report is the whole operation, a repeat replays', async () => {
    const id = (await conProductoSvc.rpc.createBodega({ nombre: 'Con productos', capacidad: 1_000_000 })).bodega!.id;
    asignados.set(id, [11, 12, 13, 14, 15]);
    await sembrarNiveles(conProductoSvc.db, id, 1_000, 600, 2);
    const borrar = (maxChunks: number) =>
      conProductoSvc.rpc.deleteBodega(
        { id, retirarExistencias: true, desasignarProductos: true, maxChunks, requestId: 'desasignar-1' },
        ANA,
      );

    const primera = await borrar(1);
    expect(primera).toMatchObject({ pendiente: true, existenciasRetiradas: 0, totalDesasignados: 2 });
    expect(await nivelesEn(id)).toBe(600);
    expect((await borrar(1)).totalDesasignados).toBe(4);
    // The last product, then the first 500 levels in the same call.
    expect(await borrar(1)).toMatchObject({ pendiente: true, existenciasRetiradas: 500, totalDesasignados: 5 });
    const done = await borrar(1);
    expect(done).toMatchObject({
      pendiente: false,
      existenciasRetiradas: 600,
      unidadesRetiradas: 1_200,
      totalDesasignados: 5,
    });
    expect(done.productosDesasignados.map((p) => p.id)).toEqual([11, 12, 13, 14, 15]);
    expect(await nivelesEn(id)).toBe(0);
    expect((await grpcError(conProductoSvc.rpc.getBodega({ id }))).code).toBe(status.NOT_FOUND);

    // Every UnassignBodega under the delete's key, as the caller, one chunk each.
    const deEsta = productoSvc.peticiones.filter((p) => p.bodegaId === id);
    expect(deEsta).toHaveLength(4);
    expect(new Set(deEsta.map((p) => JSON.stringify(p)))).toEqual(
      new Set([JSON.stringify({ bodegaId: id, requestId: 'desasignar-1', maxChunks: 1, usuario: 'ana' })]),
    );

    // A repeat under the key replays the deletion and the report.
    expect(await borrar(3)).toEqual(done);
  });

  it('under a stale expected_version: ABORTED before producto-svc is asked, nothing changed', async () => {
    const id = (await conProductoSvc.rpc.createBodega({ nombre: 'Versión vieja', capacidad: 1_000_000 })).bodega!.id;
    asignados.set(id, [21, 22]);
    await actualizarEn(id);
    const err = await grpcError(
      conProductoSvc.rpc.deleteBodega(
        { id, expectedVersion: 1, retirarExistencias: true, desasignarProductos: true },
        ANA,
      ),
    );
    expect(err.code).toBe(status.ABORTED);
    expect(currentVersionOf(err)).toBe(2);
    expect(productoSvc.peticiones.filter((p) => p.bodegaId === id)).toEqual([]);
    expect(asignados.get(id)).toEqual([21, 22]);
    expect((await conProductoSvc.db('bodegas').where({ id }).first()).eliminando_desde).toBeNull();
  });

  it('producto-svc unavailable: UNAVAILABLE naming it (DEPENDENCIA_NO_DISPONIBLE); the warehouse stays, marked, its stock untouched', async () => {
    const id = (await conProductoSvc.rpc.createBodega({ nombre: 'Sin producto-svc', capacidad: 1_000_000 })).bodega!.id;
    caidas.add(id);
    await sembrarNiveles(conProductoSvc.db, id, 5_000, 10, 1);
    const err = await grpcError(
      conProductoSvc.rpc.deleteBodega(
        { id, retirarExistencias: true, desasignarProductos: true, requestId: 'caido-1' },
        ANA,
      ),
    );
    expect(err.code).toBe(status.UNAVAILABLE);
    expect(errorReasonOf(err)).toBe('DEPENDENCIA_NO_DISPONIBLE');
    expect(await nivelesEn(id)).toBe(10);
    // As when the BFF marked it and then failed to reach producto-svc: any later forced delete completes it.
    expect((await conProductoSvc.db('bodegas').where({ id }).first()).eliminando_desde).not.toBeNull();
  });
});
