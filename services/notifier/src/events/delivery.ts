import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { JsMsg } from '@nats-io/jetstream';
import type { Logger } from '@inventario/platform';
import { classifySmtpError, type Mailer } from '../email/mailer';
import type { EmailRenderer, RenderedEmail } from '../email/templates';
import type { EmailModel, EventHandler, PreparedEvent } from '../handlers';
import type { NameLookup } from '../names/name-lookup';
import type { NotifierMetrics } from '../metrics';
import { deadLetterSubject, originOf, type DeadLetterPublisher } from './dead-letter';
import type { MessageHeartbeat } from './message-heartbeat';
import { isLastDelivery, retryDelayMs, type RetryPolicy } from './retry-policy';
import { EMAIL_HORIZON_MS, type Claim, type ClaimResult, type Holder, type SentRegistry } from './sent-registry';

/**
 * The ack policy of every notifier consumer (docs/contract.md §6.3):
 * - invalid event: dead letter + term (redelivery cannot fix it);
 * - older than the sent registry remembers, or already emailed: ack, no email;
 * - another delivery of the event id is sending: nak; of this very message: leave it to that process;
 * - SMTP accepted: mark sent, then ack;
 * - transient failure: nak with backoff, or dead letter + term on the last delivery;
 * - permanent failure (SMTP 5xx): dead letter + term at once;
 * - a dead letter JetStream did not store: nak, never term.
 */

export type DeliveryOutcome = 'sent' | 'duplicate' | 'too-old' | 'busy' | 'held-elsewhere' | 'retry' | 'dead-lettered';

export interface DeliveryDeps {
  /** Events of another namespace are invalid here. */
  namespace: string;
  prefix: string;
  renderer: EmailRenderer;
  mailer: Pick<Mailer, 'send'>;
  sent: SentRegistry;
  deadLetters: DeadLetterPublisher;
  metrics: NotifierMetrics;
  logger: Logger;
  retry: RetryPolicy;
  /**
   * Fault injection, for tests only (startApp's `faults`, never the environment): wait between recording an email as
   * sent and acking it.
   */
  faultAckDelayMs?: number;
  emailHorizonMs?: number;
  now?: () => number;
  /** Names the events do not carry; without it, emails name those records by id. */
  names?: Pick<NameLookup, 'producto' | 'bodega'>;
  /**
   * How long recording a sent email is tried again (default 30 s): in a NATS
   * cluster the bucket's leader may be changing (a node lost), and an email
   * not recorded goes out again if its message is redelivered. The claim
   * stays fresh meanwhile, so no other delivery takes the event over.
   */
  recordSentWithinMs?: number;
  /**
   * How long claiming the event is tried again while the sent registry does
   * not answer (default 30 s), the message held meanwhile by its heartbeat.
   * A bucket without a leader for a few seconds (a node lost) is not a
   * failure of the delivery: naked at once, each attempt would use up one of
   * max_deliver, and a short NOTIFIER_BACKOFF_MS would dead-letter every
   * event in hand before the bucket is back.
   */
  claimWithinMs?: number;
}

/** Never throws; settles the message unless another process holds it ('held-elsewhere'). */
export type Deliver = (handler: EventHandler, msg: JsMsg, heartbeat: MessageHeartbeat) => Promise<DeliveryOutcome>;

type LogFields = Record<string, unknown>;

/**
 * Events this process emailed but could not record as sent (the bucket
 * without a leader past recordSentWithinMs), by event id: a redelivery to
 * this process, e.g. after an ack lost with the consumer's leader, records
 * and acks it instead of taking the unrefreshed claim over and sending again.
 * Bounded: the oldest is forgotten first.
 */
type Unrecorded = Map<string, { claim: Claim; messageId: string }>;
const UNRECORDED_MAX = 10_000;

/** One delivery of one message: what each of its steps reads. */
interface Attempt {
  deps: DeliveryDeps;
  unrecorded: Unrecorded;
  handler: EventHandler;
  msg: JsMsg;
  heartbeat: MessageHeartbeat;
  fields: LogFields;
  /** Once the event is parsed: its dead letters carry it. */
  eventId?: string;
}

export function createDelivery(deps: DeliveryDeps): Deliver {
  const emailHorizonMs = deps.emailHorizonMs ?? EMAIL_HORIZON_MS;
  const now = deps.now ?? Date.now;
  const unrecorded: Unrecorded = new Map();
  return (handler, msg, heartbeat) =>
    deliver(
      {
        deps,
        unrecorded,
        handler,
        msg,
        heartbeat,
        fields: { consumer: handler.name, streamSeq: msg.seq, deliveryCount: msg.info.deliveryCount },
      },
      { now, emailHorizonMs },
    );
}

async function deadLetter(at: Attempt, reason: string): Promise<DeliveryOutcome> {
  const { deps, handler, msg, fields, eventId } = at;
  const { logger, metrics } = deps;
  const subject = deadLetterSubject(deps.prefix, handler.eventType);
  let duplicate: boolean;
  try {
    ({ duplicate } = await deps.deadLetters.publish(originOf(msg), {
      type: handler.eventType,
      consumer: handler.name,
      reason,
      ...(eventId ? { eventId } : {}),
    }));
  } catch (err) {
    // Terming without a stored letter would lose the event; after the last delivery MaxDeliveriesHandler stores it.
    const publishError = err instanceof Error ? err.message : String(err);
    const retryInMs = retryDelayMs(deps.retry, msg.info.deliveryCount);
    msg.nak(retryInMs);
    const next = isLastDelivery(deps.retry, msg.info.deliveryCount)
      ? 'MaxDeliveriesHandler stores it once the deliveries ran out'
      : 'it is tried again on the next delivery';
    logger.error({ ...fields, reason, publishError, retryInMs }, `could not store the dead letter; nak, ${next}`);
    return 'retry';
  }
  // No reason text: servers before 2.11 do not take one.
  msg.term();
  // A duplicate was published, and counted, before a crash.
  if (!duplicate) metrics.deadLettered.labels(handler.eventType).inc();
  logger.error({ ...fields, reason, deadLetterSubject: subject }, 'event dead-lettered; no email sent');
  return 'dead-lettered';
}

function retry(at: Attempt, reason: string): Promise<DeliveryOutcome> | DeliveryOutcome {
  const { deps, handler, msg, fields } = at;
  const { logger, metrics } = deps;
  const { deliveryCount } = msg.info;
  if (isLastDelivery(deps.retry, deliveryCount)) {
    return deadLetter(at, `${reason} (still failing after ${deliveryCount} deliveries)`);
  }
  const retryInMs = retryDelayMs(deps.retry, deliveryCount);
  msg.nak(retryInMs);
  metrics.retried.labels(handler.eventType).inc();
  logger.warn({ ...fields, reason, retryInMs }, 'email not sent; nak, JetStream redelivers it after retryInMs');
  return 'retry';
}

function keepFresh(at: Attempt, claim: Claim) {
  const { deps, heartbeat, fields } = at;
  const { logger } = deps;
  let current = claim;
  let lost = false;
  const stop = heartbeat.alsoRefresh(async () => {
    if (lost) return;
    const next = await deps.sent.refresh(current);
    if (next) {
      current = next;
      return;
    }
    lost = true;
    logger.warn(
      fields,
      'claim on the event taken over while sending (this process looked dead for ack_wait); the email may go out ' +
        'twice, with the same Message-ID',
    );
  });
  return { stop, current: () => current };
}

/**
 * claim, tried again while the registry does not answer or the key keeps changing, until claimWithinMs has passed
 * (then it rejects).
 */
async function claimEvent(at: Attempt, eventId: string, holder: Holder): Promise<ClaimResult> {
  const { deps, fields } = at;
  const { logger } = deps;
  const until = Date.now() + (deps.claimWithinMs ?? 30_000);
  for (let attempt = 1; ; attempt++) {
    try {
      return await deps.sent.claim(eventId, holder);
    } catch (err) {
      if (Date.now() >= until) throw err;
      logger.warn({ ...fields, err, attempt }, 'sent registry did not answer the claim; trying again');
      await sleep(Math.min(2000, 100 * 2 ** attempt));
    }
  }
}

/**
 * markSent, tried again until it lands or recordSentWithinMs has passed, while the claim is kept fresh; false when it
 * never landed.
 */
async function recordSent(
  at: Attempt,
  claim: { current(): Claim },
  sentEmail: { messageId: string },
): Promise<boolean> {
  const { deps, fields } = at;
  const { logger } = deps;
  const until = Date.now() + (deps.recordSentWithinMs ?? 30_000);
  for (let attempt = 1; ; attempt++) {
    try {
      await deps.sent.markSent(claim.current(), sentEmail);
      return true;
    } catch (err) {
      if (Date.now() >= until) {
        logger.error(
          { ...fields, err },
          'email sent but not recorded as sent; should this delivery be redelivered, it is emailed again',
        );
        return false;
      }
      logger.warn({ ...fields, err, attempt }, 'email sent; recording it as sent failed, trying again');
      await sleep(Math.min(2000, 100 * 2 ** attempt));
    }
  }
}

async function send(at: Attempt, event: PreparedEvent, email: RenderedEmail): Promise<DeliveryOutcome> {
  const sentHere = at.unrecorded.get(event.eventId);
  if (sentHere) return ackSentHere(at, event, sentHere);
  const claimed = await claimOrSettle(at, event);
  if (claimed.status !== 'claimed') return claimed.outcome;
  return mailAndAck(at, { event, email, claimed: claimed.claim });
}

/** Emailed by this process, not recorded then: record it now (best effort) and ack. */
async function ackSentHere(
  at: Attempt,
  event: PreparedEvent,
  sentHere: { claim: Claim; messageId: string },
): Promise<DeliveryOutcome> {
  const { deps, unrecorded, msg, fields } = at;
  const { logger } = deps;
  const recorded = await deps.sent.markSent(sentHere.claim, { messageId: sentHere.messageId }).then(
    () => true,
    () => false,
  );
  if (recorded) unrecorded.delete(event.eventId);
  msg.ack();
  logger.info(
    { ...fields, messageId: sentHere.messageId, recorded },
    'event already emailed by this process (not recorded then); acked without sending',
  );
  return 'duplicate';
}

/** The claim on the event, or the outcome that settled the message without one. */
async function claimOrSettle(
  at: Attempt,
  event: PreparedEvent,
): Promise<{ status: 'claimed'; claim: Claim } | { status: 'settled'; outcome: DeliveryOutcome }> {
  const { deps, msg, fields } = at;
  const { logger } = deps;
  const { deliveryCount } = msg.info;
  const settled = (outcome: DeliveryOutcome) => ({ status: 'settled' as const, outcome });
  let claimed;
  try {
    claimed = await claimEvent(at, event.eventId, { stream: msg.info.stream, seq: msg.seq, token: randomUUID() });
  } catch (err) {
    return settled(await retry(at, `sent registry unavailable: ${err instanceof Error ? err.message : String(err)}`));
  }
  if (claimed.status === 'sent') {
    msg.ack();
    logger.info({ ...fields, sentAt: claimed.sentAt }, 'event already emailed; acked without sending');
    return settled('duplicate');
  }
  if (claimed.status === 'busy' && claimed.sameMessage) {
    // JetStream settles acks by stream sequence, so that process settles it; if it dies, its claim goes stale.
    logger.info(fields, 'another process is still sending this very message; left to it');
    return settled('held-elsewhere');
  }
  if (claimed.status === 'busy') {
    if (isLastDelivery(deps.retry, deliveryCount)) {
      // The delivery holding the claim carries the event to its end.
      msg.ack();
      logger.info(fields, 'another delivery of this event holds it; this copy is done');
      return settled('duplicate');
    }
    const retryInMs = Math.min(retryDelayMs(deps.retry, deliveryCount), claimed.retryInMs);
    msg.nak(retryInMs);
    logger.info(
      { ...fields, retryInMs },
      'another delivery of this event is sending it; nak, looked at again after retryInMs',
    );
    return settled('busy');
  }
  if (claimed.takeover) {
    logger.warn(
      { ...fields, takeover: claimed.takeover },
      'a previous attempt stopped refreshing its claim (its process died?); sending again (same Message-ID, in ' +
        'case that one went through)',
    );
  }
  return { status: 'claimed', claim: claimed.claim };
}

/** Sends under the claim, kept fresh meanwhile; records the email as sent, then acks. */
async function mailAndAck(
  at: Attempt,
  { event, email, claimed }: { event: PreparedEvent; email: RenderedEmail; claimed: Claim },
): Promise<DeliveryOutcome> {
  const { deps, unrecorded, handler, msg, fields } = at;
  const { logger, metrics } = deps;
  const claim = keepFresh(at, claimed);
  let sentEmail;
  try {
    sentEmail = await deps.mailer.send({ ...email, eventId: event.eventId, eventType: event.model.event.type });
  } catch (err) {
    const failure = classifySmtpError(err);
    await claim.stop();
    await deps.sent.release(claim.current()).catch((releaseErr: unknown) => {
      logger.warn(
        { ...fields, err: releaseErr },
        'could not release the claim; another delivery may take it once it is stale',
      );
    });
    if (failure.permanent) return deadLetter(at, failure.reason);
    return retry(at, failure.reason);
  }
  metrics.sent.labels(handler.eventType).inc();
  if (!(await recordSent(at, claim, sentEmail))) {
    if (unrecorded.size >= UNRECORDED_MAX) unrecorded.delete(unrecorded.keys().next().value as string);
    unrecorded.set(event.eventId, { claim: claim.current(), messageId: sentEmail.messageId });
  }
  await claim.stop();
  if (deps.faultAckDelayMs) await sleep(deps.faultAckDelayMs);
  msg.ack();
  logger.info({ ...fields, messageId: sentEmail.messageId, smtpResponse: sentEmail.response }, 'email sent');
  return 'sent';
}

/** The email with the names its event lacks; a lookup never fails (it gives undefined, and the id is shown). */
async function withNames(deps: DeliveryDeps, event: PreparedEvent): Promise<EmailModel> {
  const { producto, bodega } = event.porBuscar;
  if (!deps.names || (producto === undefined && bodega === undefined)) return event.model;
  const [productoNombre, bodegaNombre] = await Promise.all([
    producto === undefined ? undefined : deps.names.producto(producto),
    bodega === undefined ? undefined : deps.names.bodega(bodega),
  ]);
  return event.withNombres({ producto: productoNombre, bodega: bodegaNombre });
}

async function deliver(
  at: Attempt,
  { now, emailHorizonMs }: { now: () => number; emailHorizonMs: number },
): Promise<DeliveryOutcome> {
  const { deps, handler, msg, fields } = at;
  const { logger } = deps;
  try {
    const preparation = handler.prepare(msg.string(), deps.namespace);
    if (!preparation.ok) return await deadLetter(at, `unparsable event: ${preparation.reason}`);
    const event = preparation.prepared;
    at.eventId = event.eventId;
    Object.assign(fields, { eventId: event.eventId, eventType: event.model.event.type, subject: event.subject });
    logger.info(fields, 'event received');
    const storedAgoMs = now() - msg.time.getTime();
    if (storedAgoMs > emailHorizonMs) {
      msg.ack();
      logger.warn(
        { ...fields, storedAgoMs, emailHorizonMs },
        'event older than the sent registry remembers; acked without an email, as it may have been emailed already',
      );
      return 'too-old';
    }
    const model = await withNames(deps, event);
    let email: RenderedEmail;
    try {
      email = deps.renderer.render(handler.template, model);
    } catch (err) {
      return await deadLetter(
        at,
        `template ${handler.template} failed: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
    return await send(at, event, email);
  } catch (err) {
    // A bug, not a policy: let JetStream redeliver rather than lose the event.
    const retryInMs = retryDelayMs(deps.retry, msg.info.deliveryCount);
    logger.error({ ...fields, err, retryInMs }, 'unexpected error handling an event; nak');
    msg.nak(retryInMs);
    return 'retry';
  }
}
