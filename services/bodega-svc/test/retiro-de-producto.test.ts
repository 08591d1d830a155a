/**
 * A product taken out of a warehouse (retiro-de-producto.ts): the level written out on the real
 * database, the product's bodegaId in a producto-svc stand-in that can fail between the two
 * writes. A keyed retry completes what the first attempt left, and answers as replayed only when
 * nothing executed. (End to end through the BFF: services/bff/test/existencias-rest.test.ts.)
 */
import { idempotencyKeyOf, UnavailableError, type CallContext } from '@inventario/platform';
import { createExistenciaEvents } from '../src/events/existencia-events';
import type { ProductoAsignaciones } from '../src/grpc/producto-asignaciones';
import { createRetiroDeProducto } from '../src/retiro-de-producto';
import { createExistenciaStore, type ExistenciaStore } from '../src/store/existencia-store';
import { startTestService, type TestService } from './support/test-service';

let svc: TestService;
let store: ExistenciaStore;

beforeAll(async () => {
  svc = await startTestService('bodega_retiro');
  store = createExistenciaStore(svc.db, {
    events: createExistenciaEvents({ namespace: 'Service', subjectPrefix: svc.ns.prefix }),
    idempotencyTtlSeconds: 3600,
    productos: { isLive: () => Promise.resolve(true) },
  });
});

afterAll(async () => {
  await svc?.close();
});

/** producto-svc's product and its keyed writes, as UpdateProducto answers them; `fallos` calls fail first. */
function productoSvc(productoId: number, bodegaId: number) {
  const producto = { bodegaId: bodegaId as number | null, version: 1 };
  const claves = new Map<string, number>();
  const escrituras: number[] = [];
  let fallos = 0;
  const asignaciones: Omit<ProductoAsignaciones, 'desasignarBodega'> = {
    asignacion: (id) => Promise.resolve(id === productoId ? { ...producto } : null),
    desasignar(_id, version, requestId) {
      if (fallos > 0) {
        fallos--;
        return Promise.reject(new UnavailableError('producto-svc unreachable'));
      }
      const registrada = requestId === undefined ? undefined : claves.get(requestId);
      if (registrada !== undefined) return Promise.resolve(registrada === version ? 'repetido' : 'clave-usada');
      if (version !== producto.version) return Promise.resolve('otra-version');
      producto.bodegaId = null;
      producto.version++;
      escrituras.push(version);
      if (requestId !== undefined) claves.set(requestId, version);
      return Promise.resolve('hecho');
    },
    close: () => undefined,
  };
  return { producto, asignaciones, escrituras, fallarUnaVez: () => (fallos = 1) };
}

/** A call as RetirarExistencia makes it: the caller with its key (fresh per call, as each gRPC call gets one). */
function llamada(clave: string): CallContext {
  return { usuario: 'ana', idempotency: idempotencyKeyOf('ana', 'RetirarExistencia', clave, Buffer.from('retiro')) };
}

describe('removing a product from a warehouse', () => {
  it('a failure between the two writes: the keyed retry completes the second (executed, not replayed); a third answers replayed', async () => {
    const { bodega } = await svc.rpc.createBodega({ nombre: `Retiro ${Date.now()}`, capacidad: 100 });
    const bodegaId = bodega!.id;
    const productoId = 7_000_001;
    await store.asignar({ bodegaId, productoId, cantidad: 5, umbralMinimo: undefined }, { usuario: 'ana' }, {});
    const fake = productoSvc(productoId, bodegaId);
    const retirar = createRetiroDeProducto({ store, productos: fake.asignaciones });

    fake.fallarUnaVez();
    const primera = llamada('retiro-1');
    await expect(retirar(bodegaId, productoId, primera, { claveIdempotencia: 'retiro-1' })).rejects.toThrow(
      UnavailableError,
    );
    // The level went out; the assignment is still there.
    expect(await svc.db('existencias').where({ bodega_id: bodegaId, producto_id: productoId }).first()).toBeUndefined();
    expect(fake.producto).toEqual({ bodegaId, version: 1 });

    const segunda = llamada('retiro-1');
    const respuesta = await retirar(bodegaId, productoId, segunda, { claveIdempotencia: 'retiro-1' });
    expect(respuesta).toMatchObject({ existia: true, cantidadRetirada: 5, desasignado: true });
    expect(segunda.idempotency!.replayed).toBe(false);
    expect(fake.producto).toEqual({ bodegaId: null, version: 2 });

    const tercera = llamada('retiro-1');
    expect(await retirar(bodegaId, productoId, tercera, { claveIdempotencia: 'retiro-1' })).toMatchObject({
      existia: true,
      cantidadRetirada: 5,
    });
    expect(tercera.idempotency!.replayed).toBe(true);
    // One RETIRO line and one bodegaId write in all.
    expect(
      await svc
        .db('movimientos')
        .where({ bodega_id: bodegaId, producto_id: productoId, motivo: 'RETIRO' })
        .count<{ n: number }[]>({ n: '*' }),
    ).toEqual([{ n: 1 }]);
    expect(fake.escrituras).toEqual([1]);
  });

  it('only assigned: a keyed retry after the unassignment answers the same, replayed; without a key, never a derived key', async () => {
    const { bodega } = await svc.rpc.createBodega({ nombre: `Solo asignado ${Date.now()}`, capacidad: 100 });
    const bodegaId = bodega!.id;
    const fake = productoSvc(7_000_002, bodegaId);
    const retirar = createRetiroDeProducto({ store, productos: fake.asignaciones });
    const primera = llamada('retiro-2');
    expect(await retirar(bodegaId, 7_000_002, primera, { claveIdempotencia: 'retiro-2' })).toEqual({
      existia: false,
      cantidadRetirada: 0,
      operacion: null,
      desasignado: true,
    });
    expect(primera.idempotency!.replayed).toBe(false);
    const otra = llamada('retiro-2');
    expect(await retirar(bodegaId, 7_000_002, otra, { claveIdempotencia: 'retiro-2' })).toMatchObject({
      desasignado: true,
    });
    expect(otra.idempotency!.replayed).toBe(true);

    // Unkeyed (an empty request_id): executed, never answered from a key.
    const a = productoSvc(7_000_003, bodegaId);
    await createRetiroDeProducto({ store, productos: a.asignaciones })(
      bodegaId,
      7_000_003,
      { usuario: 'ana' },
      { claveIdempotencia: '' },
    );
    expect(a.producto.bodegaId).toBeNull();
    // Neither stocked nor assigned any more: 404 naming productoId.
    await expect(
      createRetiroDeProducto({ store, productos: a.asignaciones })(
        bodegaId,
        7_000_003,
        { usuario: 'ana' },
        { claveIdempotencia: '' },
      ),
    ).rejects.toMatchObject({
      violations: [
        {
          campo: 'productoId',
          mensaje: `la bodega ${bodegaId} no tiene el producto 7000003 (ni asignado ni con existencias)`,
        },
      ],
    });
  });
});
