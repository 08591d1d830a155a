import express from 'express';
import { validateFields } from '@inventario/platform';
import type { ReservaClient } from '../downstream/reserva-client';
import { PreconditionRequiredError } from '../inventario/errors';
import type { Reserva } from '../reservas/model';
import { callerOf } from './auth';
import { jsonBody } from './json-body';
import { parseConsumo, parseExtension, parseLiberacion, parseReserva, parseReservaQuery } from './reserva-schemas';
import { malformedPathId, parsePathId } from './request-params';
import { sendJson } from './rest-json';
import { etagOf, sendRecord, writeOptionsOf } from './safe-write-headers';

const DEFAULT_LIMIT = 100;

/**
 * docs/contract.md §13.2: each route translates one request into one ReservaService call and its
 * answer back; every rule (what is available, expiry, one transition) is bodega-svc's.
 */
export function createReservasRouter(reservas: ReservaClient): express.Router {
  const router = express.Router();
  router.use(jsonBody());
  const send = (res: express.Response, status: number, reserva: Reserva, extra: Record<string, unknown> = {}) => {
    res.setHeader('ETag', etagOf(reserva.version));
    sendJson(res, status, { ...reserva, ...extra });
  };

  router.post('/', async (req, res) => {
    const { input, write } = validateFields({
      input: () => parseReserva(req.body),
      write: () => writeOptionsOf(req, res, { conditional: false }),
    });
    const reserva = await reservas.crear(callerOf(res), input, write);
    res.location(`${req.baseUrl}/${reserva.id}`);
    send(res, 201, reserva);
  });

  router.get('/', async (req, res) => {
    const { filter, limit, cursor } = parseReservaQuery(req.query);
    const page = await reservas.list(callerOf(res), { ...filter, pageSize: limit ?? DEFAULT_LIMIT, pageToken: cursor });
    sendJson(res, 200, {
      reservas: page.reservas,
      siguienteCursor: page.nextPageToken === '' ? null : page.nextPageToken,
    });
  });

  router.get('/:id', async (req, res) => {
    const reserva = await reservas.get(callerOf(res), parsePathId(req.params.id));
    sendRecord(req, res, etagOf(reserva.version), () => sendJson(res, 200, reserva));
  });

  router.post('/:id/consumo', async (req, res) => {
    const { id, input, write } = validateFields({
      id: () => parsePathId(req.params.id),
      input: () => parseConsumo(req.body),
      write: () => writeOptionsOf(req, res, { conditional: true }),
    });
    const { reserva, operacionId } = await reservas.consumir(callerOf(res), id, input, write);
    send(res, 200, reserva, { operacionId });
  });

  router.post('/:id/liberacion', async (req, res) => {
    const { id, write } = validateFields({
      id: () => parsePathId(req.params.id),
      body: () => parseLiberacion(req.body),
      write: () => writeOptionsOf(req, res, { conditional: true }),
    });
    send(res, 200, await reservas.liberar(callerOf(res), id, write));
  });

  router.patch('/:id', async (req, res) => {
    const { id, expiraEn, write } = validateFields({
      id: () => parsePathId(req.params.id),
      expiraEn: () => parseExtension(req.body),
      write: () => writeOptionsOf(req, res, { conditional: true }),
    });
    // An extension is of a known state: its version (428 without it).
    if (typeof write.ifMatch !== 'number')
      throw new PreconditionRequiredError(
        'extender una reserva requiere If-Match con su versión (su ETag), p. ej. "1"',
      );
    send(res, 200, await reservas.extender(callerOf(res), id, expiraEn, write));
  });

  router.use(malformedPathId);
  return router;
}
