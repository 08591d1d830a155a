import { createHash } from 'node:crypto';
import { IdempotencyKeyReusedError, InvalidArgumentError, NotFoundError, VersionMismatchError } from '@inventario/platform';
import type { BodegaClient } from '../downstream/bodega-client';
import type { ExistenciaClient } from '../downstream/existencia-client';
import type { ProductoClient } from '../downstream/producto-client';
import { NoExisteError, PreconditionRequiredError } from './errors';
import type { Caller, CursorPage, Existencia, ExistenciasApi, PaginaConCursor, Producto, ProductoDeBodega, WriteOptions } from './model';
import { createLecturas } from './lecturas';
import { collect, mapPages, mergeById, pagesAfter, pagesOf, STREAM_PAGE_SIZE } from './paging';

export interface ExistenciasDeps {
  productos: ProductoClient;
  bodegas: BodegaClient;
  existencias: ExistenciaClient;
  /** Called when the BFF itself refuses a write on its If-Match (see InventarioDeps). */
  onSafeWriteOutcome?: (outcome: 'version_mismatch') => void;
}

export const DEFAULT_CURSOR_LIMIT = 100;

/** `campo`: the request's field naming it (`id` for the path, `origenId`, `destinoId`). */
interface BodegaNombrada {
  campo: string;
  id: number;
}

const MENSAJES = {
  noExisteProducto: (id: number) => `no existe el producto ${id}`,
  noExisteBodega: (id: number) => `no existe la bodega ${id}`,
  noExisteOperacion: (id: number) => `no existe la operación ${id}`,
  sinExistencia: (bodegaId: number, productoId: number) => `la bodega ${bodegaId} no tiene existencias del producto ${productoId}`,
  sinProducto: (bodegaId: number, productoId: number) => `la bodega ${bodegaId} no tiene el producto ${productoId} (ni asignado ni con existencias)`,
  mismaBodega: 'debe ser distinta de origenId',
  ajusteSinVersion:
    'un AJUSTE (un conteo) requiere la versión de la existencia contada en If-Match, p. ej. "3": léala en GET /api/bodegas/{id}/existencias/{productoId}',
  existenciaInexistente: 'la existencia no existe',
} as const;

/**
 * A key for the product write a removal may make, derived from the request's so a retry replays or
 * completes it. Hashed: within a key's 255 characters, and never a key the client could send.
 */
export function derivedKey(key: string, step: string): string {
  return `bff-${step}-${createHash('sha256').update(key).digest('base64url')}`;
}

function cursorRequest(page: CursorPage): { pageSize: number; pageToken?: string } {
  return { pageSize: page.limit ?? DEFAULT_CURSOR_LIMIT, pageToken: page.cursor };
}

/** The service's malformed page token is the client's `cursor`. */
function asCursorFailure(err: unknown): unknown {
  if (!(err instanceof InvalidArgumentError) || !err.violations.some((v) => v.campo === 'pageToken')) return err;
  return new InvalidArgumentError(err.violations.map((v) => (v.campo === 'pageToken' ? { ...v, campo: 'cursor' } : v)));
}

function paginaDe<T>(items: T[], nextPageToken: string): PaginaConCursor<T> {
  return { items, siguienteCursor: nextPageToken === '' ? null : nextPageToken };
}

/**
 * The stock use cases (docs/contract.md §10.2). bodega-svc owns every rule of the levels and the
 * ledger; what spans the services lives here: a stock write needs an existing product, a removal
 * also clears the product's bodegaId, and a warehouse's product list merges assigned and stocked.
 */
export function createExistencias({ productos, bodegas, existencias, onSafeWriteOutcome }: ExistenciasDeps): ExistenciasApi {
  const { levelPagesOf, productosPorIds } = createLecturas({ productos, existencias });

  async function requireBodegas(caller: Caller, nombradas: readonly BodegaNombrada[], otros: NoExisteError['detalles'] = []): Promise<void> {
    const missing = await Promise.all(
      nombradas.map(({ campo, id }) =>
        bodegas.get(caller, id).then(
          () => undefined,
          (err: unknown) => {
            if (err instanceof NotFoundError) return { campo, mensaje: MENSAJES.noExisteBodega(id) };
            throw err;
          },
        ),
      ),
    );
    const detalles = [...otros, ...missing.filter((d) => d !== undefined)];
    if (detalles.length > 0) throw new NoExisteError(detalles);
  }

  /** No foreign key spans the services. When the product is missing, the 404 names the missing warehouses too. */
  async function requireProducto(caller: Caller, productoId: number, nombradas: readonly BodegaNombrada[]): Promise<void> {
    try {
      await productos.get(caller, productoId);
    } catch (err) {
      if (!(err instanceof NotFoundError)) throw err;
      await requireBodegas(caller, nombradas, [{ campo: 'productoId', mensaje: MENSAJES.noExisteProducto(productoId) }]);
    }
  }

  /** The warehouses are checked only on the failure path, so a write costs no extra call. */
  async function explained(caller: Caller, err: unknown, productoId: number, nombradas: readonly BodegaNombrada[]): Promise<unknown> {
    if (!(err instanceof NotFoundError) || err instanceof NoExisteError) return err;
    try {
      await requireBodegas(caller, nombradas);
    } catch (missing) {
      return missing;
    }
    const [unica] = nombradas;
    return nombradas.length === 1 && unica ? NoExisteError.campo('productoId', MENSAJES.sinExistencia(unica.id, productoId)) : err;
  }

  async function levelOrNone(caller: Caller, bodegaId: number, productoId: number): Promise<Existencia | undefined> {
    try {
      return await existencias.get(caller, bodegaId, productoId);
    } catch (err) {
      if (!(err instanceof NotFoundError)) throw err;
      await requireBodegas(caller, [{ campo: 'id', id: bodegaId }]);
      return undefined;
    }
  }

  /**
   * A numeric If-Match is bodega-svc's to check, in the write's transaction; `*` is checked here,
   * and so is 0 (a tag that can never match), which means "no level yet" to bodega-svc.
   */
  async function levelWrite(caller: Caller, bodegaId: number, productoId: number, write: WriteOptions): Promise<WriteOptions> {
    if (write.ifMatch === undefined || (typeof write.ifMatch === 'number' && write.ifMatch > 0)) return write;
    const current = await levelOrNone(caller, bodegaId, productoId);
    if (write.ifMatch === '*' && current) return { ...write, ifMatch: undefined };
    onSafeWriteOutcome?.('version_mismatch');
    throw current ? VersionMismatchError.of(current.version, write.ifMatch) : new VersionMismatchError(null, MENSAJES.existenciaInexistente);
  }

  /**
   * Under the version read, so a product reassigned meanwhile is left alone. The derived key serves
   * only this write, so a record of it under another version (IDEMPOTENCY_KEY_REUSED) means done.
   */
  async function desasignar(caller: Caller, producto: Producto, bodegaId: number, write: WriteOptions, onExecuted: () => void): Promise<boolean> {
    let current = producto;
    for (let attempt = 0; ; attempt++) {
      if (current.bodegaId !== bodegaId) return false;
      let replayed = false;
      const keyed: WriteOptions = {
        ifMatch: current.version,
        idempotencyKey: write.idempotencyKey === undefined ? undefined : derivedKey(write.idempotencyKey, 'desasignar'),
        onReplay: () => (replayed = true),
      };
      try {
        await productos.update(caller, current.id, { bodegaId: null }, keyed);
        if (!replayed) onExecuted();
        return true;
      } catch (err) {
        if (err instanceof IdempotencyKeyReusedError) return true;
        if (!(err instanceof VersionMismatchError) || attempt >= 2) throw err;
        current = await productos.get(caller, current.id);
      }
    }
  }

  /**
   * Whether an earlier attempt with this key cleared the bodegaId: its write is sent again as it was
   * (one version below now); recorded, it replays or is a reused key, else nothing is written.
   */
  async function desasignadoAntes(caller: Caller, producto: Producto | null, write: WriteOptions): Promise<boolean> {
    if (write.idempotencyKey === undefined || !producto || producto.bodegaId !== null || producto.version < 2) return false;
    let replayed = false;
    const probe: WriteOptions = {
      ifMatch: producto.version - 1,
      idempotencyKey: derivedKey(write.idempotencyKey, 'desasignar'),
      onReplay: () => (replayed = true),
    };
    try {
      await productos.update(caller, producto.id, { bodegaId: null }, probe);
    } catch (err) {
      if (err instanceof IdempotencyKeyReusedError) return true;
      if (err instanceof VersionMismatchError) return false;
      throw err;
    }
    return replayed;
  }

  const api: ExistenciasApi = {
    async asignarExistencia(caller, bodegaId, input, write = {}) {
      const nombrada = [{ campo: 'id', id: bodegaId }];
      await requireProducto(caller, input.productoId, nombrada);
      const conditioned = await levelWrite(caller, bodegaId, input.productoId, write);
      try {
        return await existencias.asignar(caller, { bodegaId, ...input }, conditioned);
      } catch (err) {
        throw await explained(caller, err, input.productoId, nombrada);
      }
    },

    /** With a key both writes carry it, so a retry after a failure between them completes the second. */
    async retirarProducto(caller, bodegaId, productoId, write = {}) {
      const producto = await productos.get(caller, productoId).catch((err: unknown) => {
        if (err instanceof NotFoundError) return null;
        throw err;
      });
      let executed = false;
      const onExecuted = () => (executed = true);
      let replayed = false;
      const conditioned = await levelWrite(caller, bodegaId, productoId, write);
      const retiro = await existencias
        .retirar(caller, bodegaId, productoId, { ...conditioned, onReplay: () => (replayed = true) })
        .catch(async (err: unknown) => {
          throw await explained(caller, err, productoId, [{ campo: 'id', id: bodegaId }]);
        });
      if (retiro.existia && !replayed) onExecuted();
      const desasignado = producto ? await desasignar(caller, producto, bodegaId, write, onExecuted) : false;
      const antes = !retiro.existia && !desasignado ? await desasignadoAntes(caller, producto, write) : false;
      if (!retiro.existia && !desasignado && !antes) {
        throw NoExisteError.campo('productoId', producto ? MENSAJES.sinProducto(bodegaId, productoId) : MENSAJES.noExisteProducto(productoId));
      }
      if (!executed) write.onReplay?.();
      return { bodegaId, productoId, cantidadRetirada: retiro.cantidadRetirada, desasignado: desasignado || antes, operacion: retiro.operacion };
    },

    async registrarMovimiento(caller, bodegaId, input, write = {}) {
      if (input.tipo === 'AJUSTE' && typeof write.ifMatch !== 'number') throw new PreconditionRequiredError(MENSAJES.ajusteSinVersion);
      const nombrada = [{ campo: 'id', id: bodegaId }];
      await requireProducto(caller, input.productoId, nombrada);
      const conditioned = await levelWrite(caller, bodegaId, input.productoId, write);
      try {
        return await existencias.registrarMovimiento(caller, bodegaId, input, conditioned);
      } catch (err) {
        throw await explained(caller, err, input.productoId, nombrada);
      }
    },

    async transferir(caller, input, write = {}) {
      if (input.origenId === input.destinoId) throw InvalidArgumentError.field('destinoId', MENSAJES.mismaBodega);
      const nombradas = [
        { campo: 'origenId', id: input.origenId },
        { campo: 'destinoId', id: input.destinoId },
      ];
      await requireProducto(caller, input.productoId, nombradas);
      try {
        return await existencias.transferir(caller, input, write);
      } catch (err) {
        throw await explained(caller, err, input.productoId, nombradas);
      }
    },

    async revertirOperacion(caller, operacionId, { comentario } = {}, write = {}) {
      try {
        return await existencias.revertir(caller, operacionId, comentario, write);
      } catch (err) {
        if (!(err instanceof NotFoundError)) throw err;
        // The operation, unless the service meant something it names (a level of it).
        try {
          await existencias.getOperacion(caller, operacionId);
        } catch (lookup) {
          throw lookup instanceof NotFoundError ? NoExisteError.campo('id', MENSAJES.noExisteOperacion(operacionId)) : lookup;
        }
        throw err;
      }
    },

    async getOperacion(caller, id) {
      try {
        return await existencias.getOperacion(caller, id);
      } catch (err) {
        throw err instanceof NotFoundError ? NoExisteError.campo('id', MENSAJES.noExisteOperacion(id)) : err;
      }
    },

    async getExistencia(caller, bodegaId, productoId) {
      const level = await levelOrNone(caller, bodegaId, productoId);
      if (!level) throw NoExisteError.campo('productoId', MENSAJES.sinExistencia(bodegaId, productoId));
      return level;
    },

    async existenciasDeBodega(caller, bodegaId) {
      const bodega = await bodegas.get(caller, bodegaId);
      return { bodega, pages: levelPagesOf(caller, bodegaId, STREAM_PAGE_SIZE) };
    },

    async existenciasDeProducto(caller, productoId) {
      const [porBodega] = await Promise.all([
        collect(
          pagesOf<Existencia>(Infinity, async (pageSize, pageToken) => {
            const page = await existencias.list(caller, { pageSize, pageToken, productoIds: [productoId] });
            return { items: page.existencias, nextPageToken: page.nextPageToken };
          }),
        ),
        productos.get(caller, productoId).catch((err: unknown) => {
          throw err instanceof NotFoundError ? NoExisteError.campo('id', MENSAJES.noExisteProducto(productoId)) : err;
        }),
      ]);
      return { productoId, total: porBodega.reduce((sum, level) => sum + level.cantidad, 0), porBodega };
    },

    async listExistencias(caller, filter, page = {}) {
      try {
        const res = await existencias.list(caller, { ...filter, ...cursorRequest(page) });
        return paginaDe(res.existencias, res.nextPageToken);
      } catch (err) {
        throw asCursorFailure(err);
      }
    },

    async listMovimientos(caller, filter, page = {}) {
      try {
        const res = await existencias.listMovimientos(caller, { ...filter, ...cursorRequest(page) });
        return paginaDe(res.movimientos, res.nextPageToken);
      } catch (err) {
        throw asCursorFailure(err);
      }
    },

    verificarExistencias: (caller) => existencias.verificar(caller),

    /** An assigned product without a level counts its cantidadEnStock, as before the ledger existed. */
    productoPagesOfBodega(caller, bodegaId) {
      const asignados = pagesOf<Producto>(
        Infinity,
        async (pageSize, pageToken) => {
          const page = await productos.list(caller, { pageSize, pageToken, bodegaIds: [bodegaId] });
          return { items: page.productos, nextPageToken: page.nextPageToken };
        },
        { pageSize: STREAM_PAGE_SIZE },
      );
      const stocked = mapPages(levelPagesOf(caller, bodegaId, STREAM_PAGE_SIZE), async (levels) => {
        const byId = new Map(
          (
            await productosPorIds(
              caller,
              levels.map((l) => l.productoId),
            )
          ).map((p) => [p.id, p]),
        );
        return levels.map((level) => ({ level, producto: byId.get(level.productoId) }));
      });
      const merged = mergeById(asignados, stocked, { left: (p) => p.id, right: (s) => s.level.productoId }, (asignado, stock): ProductoDeBodega | undefined => {
        const producto = stock?.producto ?? asignado;
        if (!producto) return undefined;
        return { id: producto.id, nombre: producto.nombre, precio: producto.precio, cantidad: stock ? stock.level.cantidad : producto.cantidadEnStock };
      });
      return pagesAfter(() => bodegas.get(caller, bodegaId), merged);
    },
  };

  return api;
}
