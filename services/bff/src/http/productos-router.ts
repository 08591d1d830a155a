import express from 'express';
import { validateFields } from '@inventario/platform';
import type { InventarioApi } from '../inventario/model';
import { callerOf } from './auth';
import type { JsonArraySender } from './json-array-stream';
import { jsonBody } from './json-body';
import { parseProductoInput, parseProductoPatch } from './producto-schemas';
import { malformedPathId, parsePathId, parseProductoFilter } from './request-params';
import { productoJsonText, sendJsonAnswer, sendJsonText } from './rest-json';
import { etagOf, sendRecord, writeOptionsOf } from './safe-write-headers';

/** docs/contract.md §2.2. Failures are thrown: Express 5 forwards rejected handlers to the error middleware. */
export function createProductosRouter(inventario: InventarioApi, sendJsonArray: JsonArraySender): express.Router {
  const router = express.Router();
  router.use(jsonBody());

  router.get('/', async (req, res) => {
    const filter = parseProductoFilter(req.query);
    await sendJsonArray(res, inventario.productoPages(callerOf(res), filter), productoJsonText);
  });

  router.get('/:id', async (req, res) => {
    const producto = await inventario.getProducto(callerOf(res), parsePathId(req.params.id));
    sendRecord(req, res, etagOf(producto.version), () => sendJsonText(res, 200, productoJsonText(producto)));
  });

  router.post('/', async (req, res) => {
    const { input, write } = validateFields({
      input: () => parseProductoInput(req.body),
      write: () => writeOptionsOf(req, res, { conditional: false }),
    });
    const producto = await inventario.createProducto(callerOf(res), input, write);
    res.location(`${req.baseUrl}/${producto.id}`);
    res.setHeader('ETag', etagOf(producto.version));
    sendJsonAnswer(res, 201, productoJsonText(producto));
  });

  router.put('/:id', async (req, res) => {
    const { id, patch, write } = validateFields({
      id: () => parsePathId(req.params.id),
      patch: () => parseProductoPatch(req.body),
      write: () => writeOptionsOf(req, res, { conditional: true }),
    });
    const producto = await inventario.updateProducto(callerOf(res), id, patch, write);
    res.setHeader('ETag', etagOf(producto.version));
    sendJsonAnswer(res, 200, productoJsonText(producto));
  });

  router.delete('/:id', async (req, res) => {
    const { id, write } = validateFields({
      id: () => parsePathId(req.params.id),
      write: () => writeOptionsOf(req, res, { conditional: true }),
    });
    await inventario.deleteProducto(callerOf(res), id, write);
    res.status(204).end();
  });

  router.use(malformedPathId);
  return router;
}
