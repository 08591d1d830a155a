import { UnavailableError } from '@inventario/platform';
import {
  createEliminadosEnBodega,
  ELIMINADOS_POR_BORRADO,
  PREGUNTAS_A_LA_VEZ,
  PREGUNTAS_MINIMO_MS,
  RESERVA_MS,
  RETIRO_MS,
} from '../src/eliminados-en-bodega';

/** A warehouse holding `ids`, and producto-svc's answer for each (true: it deleted it). */
function escenario(ids: number[], respuesta: (id: number) => Promise<boolean>) {
  const preguntas: number[] = [];
  const plazos: (number | undefined)[] = [];
  const retirados: number[] = [];
  const eliminados = createEliminadosEnBodega({
    store: {
      productosEnBodega: (_bodegaId, limite) => Promise.resolve(ids.slice(0, limite)),
      retirarProductoEliminado: (id) => {
        retirados.push(id);
        return Promise.resolve();
      },
    },
    productos: {
      wasDeleted: (id, deadline) => {
        preguntas.push(id);
        plazos.push(deadline);
        return respuesta(id);
      },
    },
  });
  return { eliminados, preguntas, plazos, retirados };
}

const borrados = () => Promise.resolve(true);
const idsHasta = (n: number) => Array.from({ length: n }, (_, i) => i + 1);
/** Lets every promise settled so far run its continuations (a fake answer resolves on a later turn). */
const flush = () => new Promise((resolve) => setImmediate(resolve));

describe('a refused safe delete and the deleted products it holds', () => {
  it('writes out every product once producto-svc confirms it deleted them all', async () => {
    const { eliminados, retirados } = escenario([3, 8], borrados);
    expect(await eliminados.retirar(1)).toBe(true);
    expect(retirados).toEqual([3, 8]);
  });

  it.each([
    ['a product producto-svc still has', (id: number) => Promise.resolve(id !== 8)],
    ['no answer from producto-svc', () => Promise.reject(new UnavailableError('producto-svc could not say'))],
  ])('keeps the refusal, writing nothing, on %s', async (_caso, respuesta) => {
    const { eliminados, retirados } = escenario([3, 8], respuesta);
    expect(await eliminados.retirar(1)).toBe(false);
    expect(retirados).toEqual([]);
  });

  it('asks nothing past the bound: the warehouse is refused as before', async () => {
    const ids = idsHasta(ELIMINADOS_POR_BORRADO + 1);
    const { eliminados, preguntas, retirados } = escenario(ids, borrados);
    expect(await eliminados.retirar(1)).toBe(false);
    expect([preguntas, retirados]).toEqual([[], []]);

    const alLimite = escenario(ids.slice(0, ELIMINADOS_POR_BORRADO), borrados);
    expect(await alLimite.eliminados.retirar(1)).toBe(true);
    expect(alLimite.retirados).toHaveLength(ELIMINADOS_POR_BORRADO);
  });

  it('lets any other failure through rather than refuse on it', async () => {
    const { eliminados } = escenario([3], () => Promise.reject(new Error('a bug')));
    await expect(eliminados.retirar(1)).rejects.toThrow('a bug');
  });
});

describe('the questions of one refused safe delete', () => {
  it(`asks them all, ${PREGUNTAS_A_LA_VEZ} at a time and never more`, async () => {
    let enVuelo = 0;
    let maximo = 0;
    const { eliminados, preguntas, retirados } = escenario(idsHasta(ELIMINADOS_POR_BORRADO), async () => {
      maximo = Math.max(maximo, ++enVuelo);
      await flush();
      enVuelo--;
      return true;
    });
    expect(await eliminados.retirar(1)).toBe(true);
    expect(maximo).toBe(PREGUNTAS_A_LA_VEZ);
    expect([preguntas.length, retirados.length]).toEqual([ELIMINADOS_POR_BORRADO, ELIMINADOS_POR_BORRADO]);
  });

  it.each([
    ['a product producto-svc still has', (decide: Respuesta) => decide.resolve(false)],
    ['no answer from producto-svc', (decide: Respuesta) => decide.reject(new UnavailableError('producto-svc calla'))],
  ])('asks nothing more once it meets %s, and writes nothing', async (_caso, responder) => {
    const pendientes = new Map<number, Respuesta>();
    const { eliminados, preguntas, retirados } = escenario(
      idsHasta(50),
      (id) => new Promise((resolve, reject) => pendientes.set(id, { resolve, reject })),
    );
    const resultado = eliminados.retirar(1);
    await flush();
    expect(preguntas).toEqual(idsHasta(PREGUNTAS_A_LA_VEZ));

    responder(pendientes.get(3)!);
    await flush();
    // Those already asked still answer; the refusal was decided by the third, so no question follows.
    for (const [id, { resolve }] of pendientes) if (id !== 3) resolve(true);
    expect(await resultado).toBe(false);
    expect([preguntas, retirados]).toEqual([idsHasta(PREGUNTAS_A_LA_VEZ), []]);
  });
});

describe("the questions inside the caller's deadline", () => {
  it('end early enough for the write-outs, the second attempt and the answer to fit before it', async () => {
    const deadline = Date.now() + 4000;
    const { eliminados, plazos } = escenario([3, 8], borrados);
    expect(await eliminados.retirar(1, { deadline })).toBe(true);
    const hasta = deadline - RESERVA_MS - 2 * RETIRO_MS;
    expect(plazos).toEqual([hasta, hasta]);
  });

  it('are not asked, and the refusal stays, when too little of it is left', async () => {
    const deadline = Date.now() + RESERVA_MS + 2 * RETIRO_MS + PREGUNTAS_MINIMO_MS - 50;
    const { eliminados, preguntas, retirados } = escenario([3, 8], borrados);
    expect(await eliminados.retirar(1, { deadline })).toBe(false);
    expect([preguntas, retirados]).toEqual([[], []]);
  });

  it("have only the lookup's own deadline when the caller set none", async () => {
    const { eliminados, plazos } = escenario([3], borrados);
    expect(await eliminados.retirar(1)).toBe(true);
    expect(plazos).toEqual([Infinity]);
  });
});

interface Respuesta {
  resolve(deleted: boolean): void;
  reject(err: Error): void;
}
