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

/** A cursor page's size when the client names none. */
export const DEFAULT_CURSOR_LIMIT = 100;

/** A warehouse a request names, and the field that names it (`id` for the path, `origenId`, `destinoId`). */
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
 * An idempotency key of its own for the product write a removal may make,
 * derived from the request's: a retry carries the same one, so it replays
 * that write or completes it. Hashed, so it stays within the 255 characters
 * a key may have, and never equals a key the client could send for its own
 * product writes (where it would be refused as reused).
 */
export function derivedKey(key: string, step: string): string {
  return `bff-${step}-${createHash('sha256').update(key).digest('base64url')}`;
}

/** A list's cursor page: its size (default 100) and the service's page token. */
function cursorRequest(page: CursorPage): { pageSize: number; pageToken?: string } {
  return { pageSize: page.limit ?? DEFAULT_CURSOR_LIMIT, pageToken: page.cursor };
}

/** A malformed cursor is the service's malformed page token: named as the public `cursor`. */
function asCursorFailure(err: unknown): unknown {
  if (!(err instanceof InvalidArgumentError) || !err.violations.some((v) => v.campo === 'pageToken')) return err;
  return new InvalidArgumentError(err.violations.map((v) => (v.campo === 'pageToken' ? { ...v, campo: 'cursor' } : v)));
}

/** One page of a cursor list in model form: the next cursor is null on the last page. */
function paginaDe<T>(items: T[], nextPageToken: string): PaginaConCursor<T> {
  return { items, siguienteCursor: nextPageToken === '' ? null : nextPageToken };
}

/**
 * The stock use cases (docs/contract.md §10.2) over bodega-svc's
 * ExistenciaService, shared by REST and GraphQL. bodega-svc owns every rule
 * of the levels and the ledger; what spans the services lives here: a stock
 * write needs an existing product (asked of producto-svc first), removing a
 * product from a warehouse also clears its bodegaId there, and the product
 * listing of a warehouse merges what is assigned with what is stocked.
 * What is missing is reported as the request names it (NoExisteError).
 */
export function createExistencias({ productos, bodegas, existencias, onSafeWriteOutcome }: ExistenciasDeps): ExistenciasApi {
  const { levelPagesOf, productosPorIds } = createLecturas({ productos, existencias });

  /** NoExisteError for each of these warehouses that does not exist (none: nothing thrown). */
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

  /**
   * The product must exist before a stock write (there is no foreign key
   * across services; bodega-svc also refuses products whose deletion it
   * has seen). When it does not, the warehouses are checked too, so the 404
   * names everything missing at once.
   */
  async function requireProducto(caller: Caller, productoId: number, nombradas: readonly BodegaNombrada[]): Promise<void> {
    try {
      await productos.get(caller, productoId);
    } catch (err) {
      if (!(err instanceof NotFoundError)) throw err;
      await requireBodegas(caller, nombradas, [{ campo: 'productoId', mensaje: MENSAJES.noExisteProducto(productoId) }]);
    }
  }

  /**
   * What a NOT_FOUND of bodega-svc means for this request: a warehouse it
   * names (checked only now, on the failure path, so a write costs no extra
   * call), else, when it named one warehouse, the level.
   */
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

  /** The level, or undefined when the warehouse holds none of the product (NoExisteError when the warehouse is missing). */
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
   * The WriteOptions of a write of one level, as bodega-svc takes them. A
   * numeric If-Match is the service's to check, in the write's transaction.
   * `*` (the level must exist) is checked here, the write then being
   * unconditional. A tag that can never match (weak, or not a version: 0)
   * is refused here, since 0 means "no level yet" to bodega-svc.
   */
  async function levelWrite(caller: Caller, bodegaId: number, productoId: number, write: WriteOptions): Promise<WriteOptions> {
    if (write.ifMatch === undefined || (typeof write.ifMatch === 'number' && write.ifMatch > 0)) return write;
    const current = await levelOrNone(caller, bodegaId, productoId);
    if (write.ifMatch === '*' && current) return { ...write, ifMatch: undefined };
    onSafeWriteOutcome?.('version_mismatch');
    throw current ? VersionMismatchError.of(current.version, write.ifMatch) : new VersionMismatchError(null, MENSAJES.existenciaInexistente);
  }

  /**
   * Clears the product's bodegaId where it still names `bodegaId`, under
   * the version read (a product reassigned meanwhile is left alone). True
   * when it was cleared by this request or, replayed, by the one whose key
   * it carries. The derived key serves this one product write of this one
   * removal (the removal's own key pins the product), so a record of it
   * under another version (IDEMPOTENCY_KEY_REUSED) also means it was done.
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
   * Whether the request whose key `write` carries cleared the product's
   * bodegaId before: its keyed write is sent again exactly as it was (the
   * version it then expected is one below the product's now). Recorded, it
   * replays (or, the product written again since, is refused as a reused
   * key: done too); otherwise the version differs and nothing is written.
   * So a retry of a removal that only unassigned answers what the first did.
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

    /**
     * Writes the level out and removes it, then clears the product's
     * bodegaId if it named this warehouse. With a key both writes carry it
     * (the product's a derived one), so a retry after a failure between
     * them completes the second, and a retry after both answers the same.
     */
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
      // A removal that found no level did nothing there: whether this request executed is the unassignment's to say.
      if (retiro.existia && !replayed) onExecuted();
      const desasignado = producto ? await desasignar(caller, producto, bodegaId, write, onExecuted) : false;
      // Nothing to do now: with a key, maybe because an earlier attempt did it (its unassignment is recorded).
      const antes = !retiro.existia && !desasignado ? await desasignadoAntes(caller, producto, write) : false;
      if (!retiro.existia && !desasignado && !antes) {
        throw NoExisteError.campo('productoId', producto ? MENSAJES.sinProducto(bodegaId, productoId) : MENSAJES.noExisteProducto(productoId));
      }
      if (!executed) write.onReplay?.();
      return { bodegaId, productoId, cantidadRetirada: retiro.cantidadRetirada, desasignado: desasignado || antes, operacion: retiro.operacion };
    },

    async registrarMovimiento(caller, bodegaId, input, write = {}) {
      // A count is of a known state: the version of the level counted.
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

    /**
     * What GET /bodegas/{id}/productos lists: the products assigned to the
     * warehouse merged with those stocked there, in id order, a page of
     * each at a time. A stocked product counts its units in this warehouse;
     * an assigned one without a level its cantidadEnStock, as before the
     * ledger existed; a level of a product that no longer exists is left out.
     */
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
