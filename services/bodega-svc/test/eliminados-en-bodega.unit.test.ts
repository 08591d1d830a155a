import { UnavailableError } from '@inventario/platform';
import { createEliminadosEnBodega, ELIMINADOS_POR_BORRADO } from '../src/eliminados-en-bodega';

/** A warehouse holding `ids`, and producto-svc's answer for each (true: it deleted it). */
function escenario(ids: number[], respuesta: (id: number) => Promise<boolean>) {
  const preguntas: number[] = [];
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
      wasDeleted: (id) => {
        preguntas.push(id);
        return respuesta(id);
      },
    },
  });
  return { eliminados, preguntas, retirados };
}

const borrados = () => Promise.resolve(true);

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
    const ids = Array.from({ length: ELIMINADOS_POR_BORRADO + 1 }, (_, i) => i + 1);
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
