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

export function createDelivery(deps: DeliveryDeps): Deliver {
  const { logger, metrics } = deps;
  const emailHorizonMs = deps.emailHorizonMs ?? EMAIL_HORIZON_MS;
  const now = deps.now ?? Date.now;
  /**
   * Events this process emailed but could not record as sent (the bucket
   * without a leader past recordSentWithinMs), by event id: a redelivery to
   * this process, e.g. after an ack lost with the consumer's leader, records
   * and acks it instead of taking the unrefreshed claim over and sending again.
   * Bounded: the oldest is forgotten first.
   */
  const unrecorded = new Map<string, { claim: Claim; messageId: string }>();
  const UNRECORDED_MAX = 10_000;

  async function deadLetter(
    handler: EventHandler,
    msg: JsMsg,
    fields: LogFields,
    reason: string,
    eventId?: string,
  ): Promise<DeliveryOutcome> {
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

  function retry(
    handler: EventHandler,
    msg: JsMsg,
    fields: LogFields,
    reason: string,
    eventId: string,
  ): Promise<DeliveryOutcome> | DeliveryOutcome {
    const { deliveryCount } = msg.info;
    if (isLastDelivery(deps.retry, deliveryCount)) {
      return deadLetter(handler, msg, fields, `${reason} (still failing after ${deliveryCount} deliveries)`, eventId);
    }
    const retryInMs = retryDelayMs(deps.retry, deliveryCount);
    msg.nak(retryInMs);
    metrics.retried.labels(handler.eventType).inc();
    logger.warn({ ...fields, reason, retryInMs }, 'email not sent; nak, JetStream redelivers it after retryInMs');
    return 'retry';
  }

  function keepFresh(heartbeat: MessageHeartbeat, claim: Claim, fields: LogFields) {
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
  async function claimEvent(eventId: string, holder: Holder, fields: LogFields): Promise<ClaimResult> {
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
    claim: { current(): Claim },
    sentEmail: { messageId: string },
    fields: LogFields,
  ): Promise<boolean> {
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

  async function send(
    handler: EventHandler,
    msg: JsMsg,
    heartbeat: MessageHeartbeat,
    event: PreparedEvent,
    email: RenderedEmail,
    fields: LogFields,
  ): Promise<DeliveryOutcome> {
    const { deliveryCount } = msg.info;
    const sentHere = unrecorded.get(event.eventId);
    if (sentHere) {
      // Emailed by this process, not recorded then: record it now (best effort) and ack.
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
    let claimed;
    try {
      claimed = await claimEvent(event.eventId, { stream: msg.info.stream, seq: msg.seq, token: randomUUID() }, fields);
    } catch (err) {
      return retry(
        handler,
        msg,
        fields,
        `sent registry unavailable: ${err instanceof Error ? err.message : String(err)}`,
        event.eventId,
      );
    }
    if (claimed.status === 'sent') {
      msg.ack();
      logger.info({ ...fields, sentAt: claimed.sentAt }, 'event already emailed; acked without sending');
      return 'duplicate';
    }
    if (claimed.status === 'busy' && claimed.sameMessage) {
      // JetStream settles acks by stream sequence, so that process settles it; if it dies, its claim goes stale.
      logger.info(fields, 'another process is still sending this very message; left to it');
      return 'held-elsewhere';
    }
    if (claimed.status === 'busy') {
      if (isLastDelivery(deps.retry, deliveryCount)) {
        // The delivery holding the claim carries the event to its end.
        msg.ack();
        logger.info(fields, 'another delivery of this event holds it; this copy is done');
        return 'duplicate';
      }
      const retryInMs = Math.min(retryDelayMs(deps.retry, deliveryCount), claimed.retryInMs);
      msg.nak(retryInMs);
      logger.info(
        { ...fields, retryInMs },
        'another delivery of this event is sending it; nak, looked at again after retryInMs',
      );
      return 'busy';
    }
    if (claimed.takeover) {
      logger.warn(
        { ...fields, takeover: claimed.takeover },
        'a previous attempt stopped refreshing its claim (its process died?); sending again (same Message-ID, in ' +
          'case that one went through)',
      );
    }

    const claim = keepFresh(heartbeat, claimed.claim, fields);
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
      if (failure.permanent) return deadLetter(handler, msg, fields, failure.reason, event.eventId);
      return retry(handler, msg, fields, failure.reason, event.eventId);
    }
    metrics.sent.labels(handler.eventType).inc();
    if (!(await recordSent(claim, sentEmail, fields))) {
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
  async function withNames(event: PreparedEvent): Promise<EmailModel> {
    const { producto, bodega } = event.porBuscar;
    if (!deps.names || (producto === undefined && bodega === undefined)) return event.model;
    const [productoNombre, bodegaNombre] = await Promise.all([
      producto === undefined ? undefined : deps.names.producto(producto),
      bodega === undefined ? undefined : deps.names.bodega(bodega),
    ]);
    return event.withNombres({ producto: productoNombre, bodega: bodegaNombre });
  }

  return async function deliver(handler, msg, heartbeat) {
    const fields: LogFields = { consumer: handler.name, streamSeq: msg.seq, deliveryCount: msg.info.deliveryCount };
    try {
      const preparation = handler.prepare(msg.string(), deps.namespace);
      if (!preparation.ok) return await deadLetter(handler, msg, fields, `unparsable event: ${preparation.reason}`);
      const event = preparation.prepared;
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
      const model = await withNames(event);
      let email: RenderedEmail;
      try {
        email = deps.renderer.render(handler.template, model);
      } catch (err) {
        return await deadLetter(
          handler,
          msg,
          fields,
          `template ${handler.template} failed: ${err instanceof Error ? err.message : String(err)}`,
          event.eventId,
        );
      }
      return await send(handler, msg, heartbeat, event, email, fields);
    } catch (err) {
      // A bug, not a policy: let JetStream redeliver rather than lose the event.
      const retryInMs = retryDelayMs(deps.retry, msg.info.deliveryCount);
      logger.error({ ...fields, err, retryInMs }, 'unexpected error handling an event; nak');
      msg.nak(retryInMs);
      return 'retry';
    }
  };
}
