import { z } from 'zod';
import { EVENT_SOURCE, type EventType } from '@inventario/platform';

/**
 * What the notifier accepts from the stream (docs/contract.md §5.2, §5.3;
 * what it refuses, §6.3). Parsing is lenient where producers legitimately
 * differ (the two product forms of docs/contract.md §5.3, `nombre` on deletions being
 * additive) and strict where an email could not be written without it
 * (record id, name of a record, units of a stock level, event time).
 * Anything that fails here is permanent: redelivering it cannot fix it.
 */

/** `2026-11-22T14:03:07`, UTC by contract; a zone suffix, if present, is honoured. */
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})?$/;

const timestamp = z
  .string()
  .regex(TIMESTAMP, 'must be an ISO 8601 timestamp such as 2026-11-22T14:03:07')
  .transform((value, ctx) => {
    const date = new Date(/(Z|[+-]\d{2}:\d{2})$/.test(value) ? value : `${value}Z`);
    if (Number.isNaN(date.getTime())) {
      ctx.addIssue({ code: 'custom', message: 'is not a real date' });
      return z.NEVER;
    }
    return date;
  });

const id = z.number().int().positive();

/**
 * Length bounds check shape, not business rules (the services enforce
 * those): every value a service stores passes, and a malformed event still
 * cannot make an email of any size. zod counts characters as code points,
 * as MySQL does.
 *
 * - A product's `descripcion` is TEXT, at most 65 535 UTF-8 bytes, so at
 *   most 65 535 characters.
 * - Names, location and user are VARCHAR(255); 1 000 characters leave room
 *   for an older producer with a looser rule.
 */
export const MAX_LONG_TEXT_UNITS = 65_535;
export const MAX_SHORT_TEXT_UNITS = 1000;
const longText = z.string().max(MAX_LONG_TEXT_UNITS);
const text = z.string().max(MAX_SHORT_TEXT_UNITS);

/** Present in every `data` of our producers; optional for events of older ones. */
const audit = {
  usuario: text.optional(),
  timestamp: z.string().optional(),
};

/**
 * Update events only (additive): public names of the fields whose value
 * changed. A malformed list costs only the "changed fields" display, never
 * the email.
 */
const camposModificados = z.array(z.string().max(100)).max(100).nullish().catch(null);

/** data of ProductoCreado / ProductoActualizado: either historical variant. */
export const productoDataSchema = z.object({
  ...audit,
  productoId: id,
  nombre: text,
  descripcion: longText.nullish(),
  precio: z.union([z.number(), z.string().max(32)]).nullish(),
  cantidadEnStock: z.number().int().nullish(),
  cantidad: z.number().int().nullish(),
  bodegaId: id.nullish(),
  camposModificados,
});
export type ProductoData = z.infer<typeof productoDataSchema>;

/** data of BodegaCreada / BodegaActualizada. */
export const bodegaDataSchema = z.object({
  ...audit,
  bodegaId: id,
  nombre: text,
  ubicacion: text.nullish(),
  capacidad: z.number().int().nullish(),
  camposModificados,
});
export type BodegaData = z.infer<typeof bodegaDataSchema>;

/** data of ProductoEliminado / BodegaEliminada: `{id}`, `nombre` when the producer adds it. */
export const deletedDataSchema = z.object({
  ...audit,
  id,
  nombre: text.nullish(),
});
export type DeletedData = z.infer<typeof deletedDataSchema>;

/**
 * data of StockBajo (and StockRepuesto, which the notifier does not email):
 * a stock level by its warehouse and product ids (the event names neither),
 * and its units, which the email is about. The threshold and the operation
 * are shown when present.
 */
export const stockUmbralDataSchema = z.object({
  ...audit,
  bodegaId: id,
  productoId: id,
  cantidad: z.number().int(),
  umbralMinimo: z.number().int().nullish(),
  version: z.number().int().nullish(),
  operacionId: id.nullish(),
});
export type StockUmbralData = z.infer<typeof stockUmbralDataSchema>;

/** The envelope; `data` is checked by the event type's handler. */
export const envelopeSchema = z.object({
  /** UUID from our producers; any short id is accepted (it keys de-duplication). */
  id: z.string().min(1).max(200),
  eventType: z.string().max(300),
  subject: z.string().max(300),
  eventTime: timestamp,
  /** `1.x`: changes within a major version are additive, so the notifier reads them. */
  dataVersion: z.string().regex(/^1(\.\d+)?$/, 'must be 1.x'),
  /** The producing service (additive); checked against the type's producer in parseEvent. */
  source: z.string().max(100).optional(),
  data: z.unknown(),
});

/** A parsed event with its `data` typed by the handler's schema. */
export interface ParsedEvent<D> {
  id: string;
  eventType: string;
  subject: string;
  eventTime: Date;
  data: D;
}

export type ParseResult<D> = { ok: true; event: ParsedEvent<D> } | { ok: false; reason: string };

/** `data.productoId: Invalid input: expected number, received string; ...` */
function describeIssues(error: z.ZodError, root?: string): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => `${[root, ...issue.path.map(String)].filter(Boolean).join('.') || '(body)'}: ${issue.message}`)
    .join('; ');
}

/**
 * Parses one stream message as an event of `type` in `namespace`: JSON, the
 * envelope, the expected `eventType` and `source` (the service that
 * produces `type`: an event claiming another producer, or none, is forged or
 * misrouted and sends no email), then `data` against `dataSchema`.
 * Never throws; the reason names what is wrong (for the dead letter).
 */
export function parseEvent<D>(
  payload: string,
  expected: { type: EventType; namespace: string },
  dataSchema: z.ZodType<D>,
): ParseResult<D> {
  let body: unknown;
  try {
    body = JSON.parse(payload);
  } catch {
    return { ok: false, reason: 'payload is not JSON' };
  }
  const envelope = envelopeSchema.safeParse(body);
  if (!envelope.success) return { ok: false, reason: `invalid envelope: ${describeIssues(envelope.error)}` };
  const eventType = `${expected.namespace}.Inventario.${expected.type}`;
  if (envelope.data.eventType !== eventType) {
    return { ok: false, reason: `eventType is not ${eventType} on this subject` };
  }
  if (envelope.data.source !== EVENT_SOURCE[expected.type]) {
    return { ok: false, reason: `source is not ${EVENT_SOURCE[expected.type]}, the producer of ${expected.type}` };
  }
  const data = dataSchema.safeParse(envelope.data.data);
  if (!data.success) return { ok: false, reason: `invalid data: ${describeIssues(data.error, 'data')}` };
  const { id: eventId, subject, eventTime } = envelope.data;
  return { ok: true, event: { id: eventId, eventType, subject, eventTime, data: data.data } };
}
