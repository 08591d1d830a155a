import { setTimeout as sleep } from 'node:timers/promises';
import type { JsMsg } from '@nats-io/jetstream';
import type { Logger } from '@inventario/platform';
import { classifySmtpError, type Mailer } from '../email/mailer';
import type { EmailRenderer, RenderedEmail } from '../email/templates';
import type { EventHandler, PreparedEvent } from '../handlers';
import type { NotifierMetrics } from '../metrics';
import { deadLetterSubject, originOf, type DeadLetterPublisher } from './dead-letter';
import type { MessageHeartbeat } from './message-heartbeat';
import { isLastDelivery, retryDelayMs, type RetryPolicy } from './retry-policy';
import { EMAIL_HORIZON_MS, type Claim, type SentRegistry } from './sent-registry';

/**
 * The ack policy of every notifier consumer, in one place (docs/contract.md §6.3):
 *
 * - unparsable or invalid event: dead letter + term (redelivery cannot fix it);
 * - stored before the email horizon (older than the sent registry
 *   remembers): ack without sending, with a warning;
 * - already emailed (sent registry): ack without sending;
 * - another delivery of the same event id is sending: nak, look again later;
 * - another process still sends this very stream message (ack_wait ran out
 *   on it): neither ack nor nak, that process acks or naks it;
 * - SMTP server accepted: mark sent, then ack;
 * - transient failure (connection refused or reset, timeout, SMTP 4xx, sent
 *   registry unreachable): nak with the backoff delay and count a retry, or,
 *   on the last allowed delivery, dead letter + term;
 * - permanent failure (SMTP 5xx): dead letter + term at once, no retry storm;
 * - a dead letter JetStream did not store: nak, never term (see deadLetter).
 */

export type DeliveryOutcome = 'sent' | 'duplicate' | 'too-old' | 'busy' | 'held-elsewhere' | 'retry' | 'dead-lettered';

export interface DeliveryDeps {
  /** EVENT_TYPE_NAMESPACE: events of another namespace are invalid here. */
  namespace: string;
  prefix: string;
  renderer: EmailRenderer;
  mailer: Pick<Mailer, 'send'>;
  sent: SentRegistry;
  deadLetters: DeadLetterPublisher;
  metrics: NotifierMetrics;
  logger: Logger;
  retry: RetryPolicy;
  /** Fault injection, for tests only (startApp's `faults`, never the environment): wait between recording an email as sent and acking it. */
  faultAckDelayMs?: number;
  /** Events stored longer ago are not emailed (default EMAIL_HORIZON_MS). */
  emailHorizonMs?: number;
  now?: () => number;
}

/**
 * Handles one delivery of `msg` for `handler`; never throws. It acks, naks
 * or terms, except when another process holds the same message
 * ('held-elsewhere'). `heartbeat` runs from the pull until the caller stops
 * it after this resolves; the claim on the event is refreshed on it.
 */
export type Deliver = (handler: EventHandler, msg: JsMsg, heartbeat: MessageHeartbeat) => Promise<DeliveryOutcome>;

type LogFields = Record<string, unknown>;

export function createDelivery(deps: DeliveryDeps): Deliver {
  const { logger, metrics } = deps;
  const emailHorizonMs = deps.emailHorizonMs ?? EMAIL_HORIZON_MS;
  const now = deps.now ?? Date.now;

  async function deadLetter(handler: EventHandler, msg: JsMsg, fields: LogFields, reason: string, eventId?: string): Promise<DeliveryOutcome> {
    const subject = deadLetterSubject(deps.prefix, handler.eventType);
    let duplicate: boolean;
    try {
      ({ duplicate } = await deps.deadLetters.publish(originOf(msg), { type: handler.eventType, consumer: handler.name, reason, ...(eventId ? { eventId } : {}) }));
    } catch (err) {
      // Never term an event whose letter is not stored: that would lose it.
      // A nak brings a later delivery, which tries again; after the last one
      // JetStream publishes its max-deliveries advisory, and
      // MaxDeliveriesHandler retries the letter from there until it is stored.
      const publishError = err instanceof Error ? err.message : String(err);
      const retryInMs = retryDelayMs(deps.retry, msg.info.deliveryCount);
      msg.nak(retryInMs);
      const next = isLastDelivery(deps.retry, msg.info.deliveryCount) ? 'MaxDeliveriesHandler stores it once the deliveries ran out' : 'it is tried again on the next delivery';
      logger.error({ ...fields, reason, publishError, retryInMs }, `could not store the dead letter; nak, ${next}`);
      return 'retry';
    }
    // No reason text on term: servers before 2.11 do not take one; it is in the letter and the log.
    msg.term();
    // A duplicate is this message's letter published before a crash: counted then.
    if (!duplicate) metrics.deadLettered.labels(handler.eventType).inc();
    logger.error({ ...fields, reason, deadLetterSubject: subject }, 'event dead-lettered; no email sent');
    return 'dead-lettered';
  }

  function retry(handler: EventHandler, msg: JsMsg, fields: LogFields, reason: string, eventId: string): Promise<DeliveryOutcome> | DeliveryOutcome {
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

  /** Refreshes `claim` on every heartbeat; `current()` is its latest revision. */
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
      logger.warn(fields, 'claim on the event taken over while sending (this process looked dead for ack_wait); the email may go out twice, with the same Message-ID');
    });
    return { stop, current: () => current };
  }

  async function send(handler: EventHandler, msg: JsMsg, heartbeat: MessageHeartbeat, event: PreparedEvent, email: RenderedEmail, fields: LogFields): Promise<DeliveryOutcome> {
    const { deliveryCount } = msg.info;
    let claimed;
    try {
      claimed = await deps.sent.claim(event.eventId, { stream: msg.info.stream, seq: msg.seq });
    } catch (err) {
      return retry(handler, msg, fields, `sent registry unavailable: ${err instanceof Error ? err.message : String(err)}`, event.eventId);
    }
    if (claimed.status === 'sent') {
      msg.ack();
      logger.info({ ...fields, sentAt: claimed.sentAt }, 'event already emailed; acked without sending');
      return 'duplicate';
    }
    if (claimed.status === 'busy' && claimed.sameMessage) {
      // ack_wait ran out while another process was sending this message and
      // it still refreshes its claim: it acks or naks the message (JetStream
      // settles acks by stream sequence). If it dies, its claim goes stale
      // and the next redelivery takes over.
      logger.info(fields, 'another process is still sending this very message; left to it');
      return 'held-elsewhere';
    }
    if (claimed.status === 'busy') {
      if (isLastDelivery(deps.retry, deliveryCount)) {
        // The delivery holding the claim carries the event to its end (email or dead letter).
        msg.ack();
        logger.info(fields, 'another delivery of this event holds it; this copy is done');
        return 'duplicate';
      }
      const retryInMs = Math.min(retryDelayMs(deps.retry, deliveryCount), claimed.retryInMs);
      msg.nak(retryInMs);
      logger.info({ ...fields, retryInMs }, 'another delivery of this event is sending it; nak, looked at again after retryInMs');
      return 'busy';
    }
    if (claimed.takeover) {
      logger.warn({ ...fields, takeover: claimed.takeover }, 'a previous attempt stopped refreshing its claim (its process died?); sending again (same Message-ID, in case that one went through)');
    }

    const claim = keepFresh(heartbeat, claimed.claim, fields);
    let sentEmail;
    try {
      sentEmail = await deps.mailer.send({ ...email, eventId: event.eventId, eventType: event.model.event.type });
    } catch (err) {
      const failure = classifySmtpError(err);
      // No refresh may land after the release and re-create the claim.
      await claim.stop();
      await deps.sent.release(claim.current()).catch((releaseErr: unknown) => {
        logger.warn({ ...fields, err: releaseErr }, 'could not release the claim; another delivery may take it once it is stale');
      });
      if (failure.permanent) return deadLetter(handler, msg, fields, failure.reason, event.eventId);
      return retry(handler, msg, fields, failure.reason, event.eventId);
    }
    metrics.sent.labels(handler.eventType).inc();
    // A refresh is a compare-and-set, so none could overwrite `sent`; stopping first keeps it quiet.
    await claim.stop();
    try {
      await deps.sent.markSent(claim.current(), sentEmail);
    } catch (err) {
      // The email is out; acking still prevents the usual redelivery.
      logger.error({ ...fields, err }, 'email sent but not recorded as sent; should this delivery be redelivered, it is emailed again');
    }
    if (deps.faultAckDelayMs) await sleep(deps.faultAckDelayMs);
    msg.ack();
    logger.info({ ...fields, messageId: sentEmail.messageId, smtpResponse: sentEmail.response }, 'email sent');
    return 'sent';
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
        logger.warn({ ...fields, storedAgoMs, emailHorizonMs }, 'event older than the sent registry remembers; acked without an email, as it may have been emailed already');
        return 'too-old';
      }
      let email: RenderedEmail;
      try {
        email = deps.renderer.render(handler.template, event.model);
      } catch (err) {
        return await deadLetter(handler, msg, fields, `template ${handler.template} failed: ${err instanceof Error ? err.message : String(err)}`, event.eventId);
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
