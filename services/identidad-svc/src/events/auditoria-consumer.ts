import {
  AckPolicy,
  DeliverPolicy,
  jetstream,
  jetstreamManager,
  type ConsumerMessages,
  type JsMsg,
} from '@nats-io/jetstream';
import { nanos, type NatsConnection } from '@nats-io/transport-node';
import {
  backoffDelayMs,
  ensureConsumer,
  envelopeMismatch,
  eventTypeOfSubject,
  inConsumeSpan,
  startConsumerSampler,
  type JetStreamConsumerMetrics,
  type Logger,
} from '@inventario/platform';
import type { AuditoriaStore } from '../store/auditoria-store';
import type { Hecho } from '../domain/auditoria';
import { hechoDeEvento, type SobreEvento } from './hecho';
import { SOURCE, TIPOS_EVENTO_IDENTIDAD, type TipoEventoIdentidad } from './identidad-events';

/**
 * The audit projection (docs/contract.md §12.5): one durable consumer on
 * the whole stream (`<prefix>.>`) writing one audit row per event. Exactly
 * once under redelivery: the row's event id is unique and checked under the
 * chain head's lock, so a redelivered or republished event is acked without
 * a second row.
 *
 * Ack policy: ack once the row committed (or was already there); nak with a
 * delay doubling from 1 s to 60 s on a failure, with no delivery limit (a
 * database outage must not leave holes in the trail); term only an event
 * that claims a known type but not its producer (§5.7), logged at error
 * level. Skipped (acked, no row): the anchors themselves and the notifier's
 * dead letters, copies of events already written. Messages are taken in the
 * stream's order and written in batches of what has arrived (at most LOTE),
 * one transaction and one commit per batch (issue 24: a transaction per
 * event cost identidad-svc about 0.6 ms of CPU per event, on every write of
 * every service); a batch that fails is written again one message at a
 * time, so one event that cannot be written holds back only itself. Every
 * batch waits for its oldest message's fill window, the one after a write
 * too: at a steady flow the write before it would otherwise leave one or two
 * messages to a transaction of their own (3.7 per batch at 300 events/s).
 */
export const AUDITORIA_CONSUMER = 'identidad-svc-auditoria';

const ACK_WAIT_MS = 90_000;
/** The most events written in one transaction. */
const LOTE = 100;
/**
 * How long the writer lets a batch fill once its first message is there: at a steady flow each message would
 * otherwise find the queue empty and be written alone. The audit row is that much later; nothing waits for it.
 */
const ESPERA_LOTE_MS = 20;
/**
 * A message held longer than this before its batch is written asks the server for more time first (`working()`):
 * a message written well inside ACK_WAIT_MS needs no such request, one more NATS publish per message.
 */
const PRORROGA_TRAS_MS = ACK_WAIT_MS / 3;

/** A message as the reader queued it: when it arrived dates its batch's fill window and its ack deadline. */
interface Recibido {
  msg: JsMsg;
  llegada: number;
}

export interface AuditoriaConsumer {
  stop(): Promise<void>;
}

/**
 * Why an envelope is not what its subject's producer publishes; undefined when it is, or when nobody is known to own
 * the subject.
 */
function rechazo(
  envelope: SobreEvento & { source?: unknown },
  natsSubject: string,
  prefix: string,
  namespace: string,
): string | undefined {
  if (eventTypeOfSubject(prefix, natsSubject)) {
    return envelopeMismatch(envelope, { prefix, namespace, natsSubject, requireSource: false });
  }
  const propio = (Object.keys(TIPOS_EVENTO_IDENTIDAD) as TipoEventoIdentidad[]).find(
    (t) => `${prefix}.${TIPOS_EVENTO_IDENTIDAD[t]}` === natsSubject,
  );
  if (!propio) return undefined;
  if (envelope.eventType !== `${namespace}.Inventario.${propio}`)
    return `eventType ${envelope.eventType} does not match subject ${natsSubject}`;
  if (envelope.source !== SOURCE)
    return `source ${String(envelope.source)} is not ${SOURCE}, the producer of ${propio}`;
  return undefined;
}

function sobre(body: unknown): (SobreEvento & { source?: unknown }) | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const e = body as Record<string, unknown>;
  if (typeof e.id !== 'string' || e.id === '' || e.id.length > 191) return undefined;
  if (typeof e.eventType !== 'string' || typeof e.subject !== 'string' || typeof e.eventTime !== 'string')
    return undefined;
  if (typeof e.data !== 'object' || e.data === null || Array.isArray(e.data)) return undefined;
  return e as unknown as SobreEvento & { source?: unknown };
}

interface AuditoriaConsumerOptions {
  nc: NatsConnection;
  stream: string;
  prefix: string;
  namespace: string;
  store: AuditoriaStore;
  logger: Logger;
  metrics: JetStreamConsumerMetrics;
}

export async function startAuditoriaConsumer(options: AuditoriaConsumerOptions): Promise<AuditoriaConsumer> {
  const { nc, stream, prefix, logger, metrics } = options;
  await ensureConsumer(await jetstreamManager(nc), stream, {
    durable_name: AUDITORIA_CONSUMER,
    filter_subject: `${prefix}.>`,
    ack_policy: AckPolicy.Explicit,
    ack_wait: nanos(ACK_WAIT_MS),
    max_deliver: -1,
    // From the start: whatever the stream still holds when the trail is first deployed is written too.
    deliver_policy: DeliverPolicy.All,
  });
  const consumer = await jetstream(nc).consumers.get(stream, AUDITORIA_CONSUMER);
  const messages = await consumer.consume({ max_messages: LOTE });
  const loop = consumir(options, messages);
  const stopSampler = startConsumerSampler({ nc, stream, consumers: [AUDITORIA_CONSUMER], metrics, logger });
  logger.info({ stream, consumer: AUDITORIA_CONSUMER }, 'audit consumer started');
  return {
    async stop() {
      await stopSampler();
      await messages.close();
      await loop;
    },
  };
}

/** The row a message asks for; undefined when it asks for none (acked: skipped; terminated: refused). */
function hechoDe(options: AuditoriaConsumerOptions, msg: JsMsg): Hecho | undefined {
  const { prefix, namespace, logger, metrics } = options;
  const omitidos = [`${prefix}.auditoria.`, `${prefix}.dlq.`];
  if (msg.info.deliveryCount > 1) metrics.redeliveries.inc({ consumer: AUDITORIA_CONSUMER });
  if (omitidos.some((p) => msg.subject.startsWith(p))) {
    msg.ack();
    return undefined;
  }
  let envelope: ReturnType<typeof sobre>;
  try {
    envelope = sobre(msg.json());
  } catch {
    envelope = undefined;
  }
  const refused = envelope ? rechazo(envelope, msg.subject, prefix, namespace) : 'not an event envelope';
  if (!envelope || refused) {
    logger.error(
      { consumer: AUDITORIA_CONSUMER, subject: msg.subject, seq: msg.seq, reason: refused },
      'event refused by the audit trail; terminated',
    );
    msg.term();
    return undefined;
  }
  return hechoDeEvento(envelope);
}

/** Writes the batch's rows in one transaction and acks them; alone, a message that fails is nak'ed. */
async function escribir(
  options: AuditoriaConsumerOptions,
  lote: readonly { msg: JsMsg; llegada: number; hecho: Hecho }[],
): Promise<void> {
  const { store, logger } = options;
  if (lote.length === 0) return;
  const prorrogar = performance.now() - PRORROGA_TRAS_MS;
  for (const { msg, llegada } of lote) if (llegada < prorrogar) msg.working();
  try {
    const escritos = await store.anexarVarios(lote.map((l) => l.hecho));
    lote.forEach(({ msg, hecho }, i) => {
      msg.ack();
      logger.debug({ eventId: hecho.eventoId, written: escritos[i] }, 'event audited');
    });
  } catch (err) {
    if (lote.length > 1) {
      for (const uno of lote) await escribir(options, [uno]);
      return;
    }
    const { msg, hecho } = lote[0]!;
    const delayMs = backoffDelayMs(msg.info.deliveryCount, { baseMs: 1000, maxMs: 60_000 });
    logger.warn(
      {
        eventId: hecho.eventoId,
        deliveryCount: msg.info.deliveryCount,
        err: err instanceof Error ? err.message : String(err),
      },
      'could not audit; nak',
    );
    msg.nak(delayMs);
  }
}

/** Reads the stream and writes what it read in batches, until the messages are closed. */
function consumir(options: AuditoriaConsumerOptions, messages: ConsumerMessages): Promise<unknown> {
  const { logger } = options;
  // The reader queues what the stream delivers; the writer takes everything queued (up to LOTE) at once, once the
  // oldest has waited its fill window.
  const cola: Recibido[] = [];
  let avisar: (() => void) | undefined;
  let leido = false;
  const lector = (async () => {
    try {
      for await (const msg of messages) {
        cola.push({ msg, llegada: performance.now() });
        avisar?.();
      }
    } finally {
      leido = true;
      avisar?.();
    }
  })();
  const escritor = (async () => {
    for (;;) {
      if (cola.length === 0) {
        if (leido) return;
        await new Promise<void>((resolve) => (avisar = resolve));
        avisar = undefined;
        continue;
      }
      const espera = cola[0]!.llegada + ESPERA_LOTE_MS - performance.now();
      if (cola.length < LOTE && !leido && espera > 0) {
        await new Promise((resolve) => setTimeout(resolve, espera));
        continue;
      }
      const lote: { msg: JsMsg; llegada: number; hecho: Hecho }[] = [];
      for (const { msg, llegada } of cola.splice(0, LOTE)) {
        const hecho = await inConsumeSpan(msg, () => Promise.resolve(hechoDe(options, msg)));
        if (hecho) lote.push({ msg, llegada, hecho });
      }
      await escribir(options, lote);
    }
  })();
  return Promise.all([lector, escritor]).catch((err: unknown) =>
    logger.error({ err, consumer: AUDITORIA_CONSUMER }, 'audit consumer stopped unexpectedly'),
  );
}

/** The last anchor in the stream (the head identidad-svc published), or undefined when there is none yet. */
export async function leerUltimaAncla(
  nc: NatsConnection,
  stream: string,
  prefix: string,
): Promise<{ seq: number; hash: string } | undefined> {
  const jsm = await jetstreamManager(nc);
  const msg = await jsm.streams.getMessage(stream, { last_by_subj: `${prefix}.auditoria.ancla` }).catch(() => null);
  if (!msg) return undefined;
  const body = msg.json<{ source?: unknown; data?: { seq?: unknown; hash?: unknown } }>();
  const { seq, hash } = body.data ?? {};
  if (body.source !== SOURCE || typeof seq !== 'number' || typeof hash !== 'string') return undefined;
  return { seq, hash };
}
