import express, { type Request } from 'express';
import { exigeVersion } from '@inventario/contract';
import { validateFields } from '@inventario/platform';
import { PreconditionRequiredError } from '../inventario/errors';
import type { InventarioApi, Operacion } from '../inventario/model';
import { callerOf } from './auth';
import {
  AJUSTE_SIN_VERSION,
  parseAsignacion,
  parseMovimiento,
  parseReverso,
  parseTransferencia,
  parseUmbral,
} from './existencia-schemas';
import type { JsonArraySender } from './json-array-stream';
import { jsonBody } from './json-body';
import { malformedPathId, parseMovimientoQuery, parsePathId } from './request-params';
import { existenciaJson, existenciaJsonText, movimientoJson, operacionJson, sendJson } from './rest-json';
import { etagOf, sendRecord, writeOptionsOf } from './safe-write-headers';

/** Under the prefix the client used. */
function operacionLocation(req: Request, operacion: Operacion): string {
  return `${req.baseUrl}/operaciones/${operacion.id}`;
}

/**
 * The stock routes of docs/contract.md §10.2; the writes of one level take If-Match with its version. A list of thin
 * handlers that each only translate, kept in one function so every stock URL reads in one place.
 */
export function createExistenciasRouter(inventario: InventarioApi, sendJsonArray: JsonArraySender): express.Router {
  const router = express.Router();
  const body = jsonBody();

  /** The older gateway's call. */
  router.post<'/bodegas/:id/productos'>('/bodegas/:id/productos', body, async (req, res) => {
    const { id, input, write } = validateFields({
      id: () => parsePathId(req.params.id),
      input: () => parseAsignacion(req.body),
      write: () => writeOptionsOf(req, res, { conditional: true }),
    });
    const { existencia } = await inventario.asignarExistencia(callerOf(res), id, input, write);
    res.setHeader('ETag', etagOf(existencia.version));
    sendJson(res, 200, {
      mensaje: 'Producto asignado a la bodega exitosamente',
      productoId: existencia.productoId,
      bodegaId: existencia.bodegaId,
      cantidad: existencia.cantidad,
    });
  });

  /** The older gateway's call. */
  router.delete('/bodegas/:id/productos/:productoId', async (req, res) => {
    const { id, productoId, write } = validateFields({
      id: () => parsePathId(req.params.id),
      productoId: () => parsePathId(req.params.productoId, 'productoId'),
      write: () => writeOptionsOf(req, res, { conditional: true }),
    });
    const retiro = await inventario.retirarProducto(callerOf(res), id, productoId, write);
    sendJson(res, 200, {
      mensaje: 'Producto retirado de la bodega exitosamente',
      productoId: retiro.productoId,
      bodegaId: retiro.bodegaId,
      cantidadRetirada: retiro.cantidadRetirada,
    });
  });

  router.get('/bodegas/:id/existencias', async (req, res) => {
    const { bodega, pages } = await inventario.existenciasDeBodega(callerOf(res), parsePathId(req.params.id));
    const before = JSON.stringify({ bodegaId: bodega.id, capacidad: bodega.capacidad, ocupacion: bodega.ocupacion });
    await sendJsonArray(res, pages, existenciaJsonText, {
      before: `${before.slice(0, -1)},"existencias":`,
      after: '}',
    });
  });

  router.get('/bodegas/:id/existencias/:productoId', async (req, res) => {
    const { id, productoId } = validateFields({
      id: () => parsePathId(req.params.id),
      productoId: () => parsePathId(req.params.productoId, 'productoId'),
    });
    const existencia = await inventario.getExistencia(callerOf(res), id, productoId);
    sendRecord(req, res, etagOf(existencia.version), () => sendJson(res, 200, existenciaJson(existencia)));
  });

  /** Only the threshold: a translation onto bodega-svc's CambiarUmbralMinimo, which writes no ledger line. */
  router.patch<'/bodegas/:id/existencias/:productoId'>(
    '/bodegas/:id/existencias/:productoId',
    body,
    async (req, res) => {
      const { id, productoId, input, write } = validateFields({
        id: () => parsePathId(req.params.id),
        productoId: () => parsePathId(req.params.productoId, 'productoId'),
        input: () => parseUmbral(req.body),
        write: () => writeOptionsOf(req, res, { conditional: true }),
      });
      const existencia = await inventario.cambiarUmbralMinimo(callerOf(res), id, productoId, input, write);
      res.setHeader('ETag', etagOf(existencia.version));
      sendJson(res, 200, existenciaJson(existencia));
    },
  );

  router.get('/productos/:id/existencias', async (req, res) => {
    const existencias = await inventario.existenciasDeProducto(callerOf(res), parsePathId(req.params.id));
    sendJson(res, 200, {
      productoId: existencias.productoId,
      total: existencias.total,
      porBodega: existencias.porBodega.map(existenciaJson),
      sinUbicar: existencias.sinUbicar ?? 0,
    });
  });

  router.post<'/bodegas/:id/movimientos'>('/bodegas/:id/movimientos', body, async (req, res) => {
    const { id, input, write } = validateFields({
      id: () => parsePathId(req.params.id),
      input: () => parseMovimiento(req.body),
      write: () => writeOptionsOf(req, res, { conditional: true }),
    });
    // A count is of a known state: bodega-svc's rule, refused here in REST's words before any call.
    if (exigeVersion(input.tipo) && typeof write.ifMatch !== 'number')
      throw new PreconditionRequiredError(AJUSTE_SIN_VERSION);
    const operacion = await inventario.registrarMovimiento(callerOf(res), id, input, write);
    res.location(operacionLocation(req, operacion));
    sendJson(res, 201, operacionJson(operacion));
  });

  router.post('/transferencias', body, async (req, res) => {
    const { input, write } = validateFields({
      input: () => parseTransferencia(req.body),
      write: () => writeOptionsOf(req, res, { conditional: false }),
    });
    const operacion = await inventario.transferir(callerOf(res), input, write);
    res.location(operacionLocation(req, operacion));
    sendJson(res, 201, operacionJson(operacion));
  });

  router.get('/operaciones/:id', async (req, res) => {
    const operacion = await inventario.getOperacion(callerOf(res), parsePathId(req.params.id));
    sendJson(res, 200, operacionJson(operacion));
  });

  router.post<'/operaciones/:id/reverso'>('/operaciones/:id/reverso', body, async (req, res) => {
    const { id, input, write } = validateFields({
      id: () => parsePathId(req.params.id),
      input: () => parseReverso(req.body),
      write: () => writeOptionsOf(req, res, { conditional: false }),
    });
    const operacion = await inventario.revertirOperacion(callerOf(res), id, input, write);
    res.location(operacionLocation(req, operacion));
    sendJson(res, 201, operacionJson(operacion));
  });

  router.get('/movimientos', async (req, res) => {
    const { filter, page } = parseMovimientoQuery(req.query);
    const pagina = await inventario.listMovimientos(callerOf(res), filter, page);
    sendJson(res, 200, { movimientos: pagina.items.map(movimientoJson), siguienteCursor: pagina.siguienteCursor });
  });

  router.get('/existencias/verificacion', async (_req, res) => {
    const verificacion = await inventario.verificarExistencias(callerOf(res));
    sendJson(res, 200, {
      consistente: verificacion.consistente,
      diferencias: verificacion.diferencias,
      nivelesVerificados: verificacion.nivelesVerificados,
      bodegasVerificadas: verificacion.bodegasVerificadas,
      diferenciasReservas: verificacion.diferenciasReservas ?? [],
      verificadoEn: verificacion.verificadoEn,
    });
  });

  router.use(malformedPathId);
  return router;
}
