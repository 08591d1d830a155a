import { formatLocalUtc } from '@inventario/platform';
import type { Producto } from '../domain/producto';

/**
 * A product in the REST form of docs/contract.md §2.3, for list pages asked
 * with `rest_json`: the BFF writes them into its answer as they come, so
 * a row is turned into JSON once, here, instead of encoded, decoded, mapped
 * and stringified on the way (docs/decisions.md, "Lists at database speed").
 * The bytes are those of the BFF's own form (rest-json.ts there, lossless-json's
 * stringify): fields in that order, strings by native JSON.stringify, `precio`
 * the stored DECIMAL text as the JSON number, timestamps UTC without zone.
 */
export function productoRestJson(p: Producto): string {
  return (
    `{"id":${p.id},"nombre":${JSON.stringify(p.nombre)},` +
    `"descripcion":${p.descripcion === null ? 'null' : JSON.stringify(p.descripcion)},` +
    `"precio":${p.precio},"cantidadEnStock":${p.cantidadEnStock},` +
    `"bodegaId":${p.bodegaId === null ? 'null' : p.bodegaId},` +
    // formatLocalUtc writes digits, '-', ':' and 'T' only: nothing to escape.
    `"fechaCreacion":"${formatLocalUtc(p.fechaCreacion)}",` +
    `"fechaActualizacion":"${formatLocalUtc(p.fechaActualizacion)}","version":${p.version}}`
  );
}
