import express from 'express';
import { validateFields } from '@inventario/platform';
import type { InventarioApi } from '../inventario/model';
import { callerOf } from './auth';
import { parseBodegaInput, parseBodegaPatch } from './bodega-schemas';
import type { JsonArraySender } from './json-array-stream';
import { jsonBody } from './json-body';
import { malformedPathId, parseForce, parsePathId } from './request-params';
import { bodegaJson, bodegaJsonText, productoDeBodegaJsonText, productoJson, sendJson } from './rest-json';
import { etagOf, sendRecord, writeOptionsOf } from './safe-write-headers';

function advertenciaDe(productos: number, existencias: number, unidades: number): string {
  if (productos === 0 && existencias === 0) return 'La bodega no tenía productos asignados';
  const sinBodega = `${productos} producto(s) quedaron sin bodega asignada`;
  if (existencias === 0) return `${sinBodega}; siguen existiendo y pueden asignarse a otra bodega`;
  return (
    `${productos} producto(s) quedaron sin esta bodega (asignación o existencias); ` +
    `se retiraron ${unidades} unidad(es) de ${existencias} existencia(s); siguen existiendo y pueden ` +
    `asignarse a otra bodega`
  );
}

/** docs/contract.md §2.2, and the warehouse safe delete of §2.7. */
export function createBodegasRouter(inventario: InventarioApi, sendJsonArray: JsonArraySender): express.Router {
  const router = express.Router();
  router.use(jsonBody());

  router.get('/', async (_req, res) => {
    await sendJsonArray(res, inventario.bodegaPages(callerOf(res)), bodegaJsonText);
  });

  router.get('/:id', async (req, res) => {
    const bodega = await inventario.getBodega(callerOf(res), parsePathId(req.params.id));
    sendRecord(req, res, etagOf(bodega.version, bodega.ocupacion), () => sendJson(res, 200, bodegaJson(bodega)));
  });

  router.get('/:id/productos', async (req, res) => {
    const id = parsePathId(req.params.id);
    await sendJsonArray(res, inventario.productoPagesOfBodega(callerOf(res), id), productoDeBodegaJsonText);
  });

  router.post('/', async (req, res) => {
    const { input, write } = validateFields({
      input: () => parseBodegaInput(req.body),
      write: () => writeOptionsOf(req, res, { conditional: false }),
    });
    const bodega = await inventario.createBodega(callerOf(res), input, write);
    res.location(`${req.baseUrl}/${bodega.id}`);
    res.setHeader('ETag', etagOf(bodega.version, bodega.ocupacion));
    sendJson(res, 201, { mensaje: 'Bodega creada exitosamente', id: bodega.id });
  });

  router.put('/:id', async (req, res) => {
    const { id, patch, write } = validateFields({
      id: () => parsePathId(req.params.id),
      patch: () => parseBodegaPatch(req.body),
      write: () => writeOptionsOf(req, res, { conditional: true }),
    });
    const bodega = await inventario.updateBodega(callerOf(res), id, patch, write);
    res.setHeader('ETag', etagOf(bodega.version, bodega.ocupacion));
    sendJson(res, 200, { mensaje: 'Bodega actualizada exitosamente' });
  });

  router.delete('/:id', async (req, res) => {
    const { id, force, write } = validateFields({
      id: () => parsePathId(req.params.id),
      force: () => parseForce(req.query),
      write: () => writeOptionsOf(req, res, { conditional: true }),
    });
    const result = await inventario.deleteBodega(callerOf(res), id, { force }, write);
    if (result.kind === 'deleted') {
      res.status(204).end();
      return;
    }
    const n = result.total;
    sendJson(res, 200, {
      mensaje: 'Bodega eliminada exitosamente',
      bodegaId: String(result.bodegaId),
      productosAfectados: n,
      detalleProductos: result.productos.map(productoJson),
      advertencia: advertenciaDe(n, result.existenciasRetiradas, result.unidadesRetiradas),
      existenciasRetiradas: result.existenciasRetiradas,
      unidadesRetiradas: result.unidadesRetiradas,
    });
  });

  router.use(malformedPathId);
  return router;
}
