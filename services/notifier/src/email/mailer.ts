import { createHash } from 'node:crypto';
import { createTransport, type NodemailerError } from 'nodemailer';
import { SpanKind } from '@opentelemetry/api';
import { inSpan } from '@inventario/platform';
import type { RenderedEmail } from './templates';

/**
 * SMTP delivery through one pooled nodemailer transport (docs/contract.md
 * §6.1). Every wait is bounded (a connect 10 s, the greeting 10 s, a silent
 * server 20 s), so a send cannot hang for ever. It may outlast the consumers'
 * ack_wait: the message's heartbeat keeps it held meanwhile.
 */
const CONNECTION_TIMEOUT_MS = 10_000;
const GREETING_TIMEOUT_MS = 10_000;
const SOCKET_TIMEOUT_MS = 20_000;

export interface OutgoingEmail extends RenderedEmail {
  /** Sets the Message-ID, so copies of one event are recognisably the same email. */
  eventId: string;
  /** `Service.Inventario.ProductoCreado`, in a header for mail filters. */
  eventType: string;
}

export interface SentEmail {
  messageId: string;
  /** The server's final reply, e.g. `250 OK: queued as 1A2B`. */
  response: string;
}

export interface Mailer {
  /** Resolves once the SMTP server accepted the message; rejects with a NodemailerError otherwise. */
  send(email: OutgoingEmail): Promise<SentEmail>;
  /** Checks that the server answers and accepts our credentials. */
  verify(): Promise<void>;
  /** Closes the pooled connections. */
  close(): void;
}

export interface MailerOptions {
  smtpUrl: string;
  from: string;
  to: readonly string[];
  /** Pool size: at most this many messages are on the wire at once. */
  maxConnections: number;
}

export function createMailer(options: MailerOptions): Mailer {
  const transport = createTransport({
    pool: true,
    url: options.smtpUrl,
    maxConnections: options.maxConnections,
    connectionTimeout: CONNECTION_TIMEOUT_MS,
    greetingTimeout: GREETING_TIMEOUT_MS,
    socketTimeout: SOCKET_TIMEOUT_MS,
  });
  return {
    send(email) {
      // The "send email" span, child of the event's CONSUMER span.
      const attributes = { 'inventario.event.id': email.eventId, 'inventario.event.type': email.eventType };
      return inSpan('send email', { kind: SpanKind.CLIENT, attributes }, async () => {
        const info = await transport.sendMail({
          from: options.from,
          to: [...options.to],
          subject: email.subject,
          html: email.html,
          text: email.text,
          messageId: messageIdFor(email.eventId),
          headers: { 'X-Inventario-Event-Id': email.eventId, 'X-Inventario-Event-Type': email.eventType },
        });
        return { messageId: info.messageId, response: info.response };
      });
    },
    async verify() {
      await transport.verify();
    },
    close() {
      transport.close();
    },
  };
}

/**
 * `<4f1c…@inventario>`: derived from the event id, so the rare second copy
 * of an email (see README, "exactly once") carries the same Message-ID and
 * mail clients can tell. An id outside the Message-ID alphabet is hashed.
 */
export function messageIdFor(eventId: string): string {
  const local = /^[A-Za-z0-9._-]{1,200}$/.test(eventId) ? eventId : createHash('sha256').update(eventId).digest('hex');
  return `<${local}@inventario>`;
}

/** Why a send failed, and whether trying again later can help. */
export interface SmtpFailure {
  permanent: boolean;
  reason: string;
}

/**
 * RFC 5321: a 5xx reply is permanent (nodemailer sets `permanent`, treating
 * 503 "bad sequence" as transient), a 4xx reply transient. With no reply at
 * all, a message nodemailer could not build (EMESSAGE, EENVELOPE) is
 * permanent; connection trouble (refused, reset, timeouts, TLS, DNS) and
 * anything unknown is transient, so it is retried and, at worst,
 * dead-lettered after the last attempt.
 */
export function classifySmtpError(err: unknown): SmtpFailure {
  const e = (err ?? {}) as NodemailerError;
  const message = e instanceof Error ? e.message : String(err);
  if (typeof e.responseCode === 'number') {
    const permanent = e.permanent ?? (e.responseCode >= 500 && e.responseCode !== 503);
    return { permanent, reason: `SMTP server answered ${e.responseCode}: ${e.response ?? message}` };
  }
  const permanent = e.code === 'EMESSAGE' || e.code === 'EENVELOPE';
  return { permanent, reason: `${e.code ?? 'SMTP error'}: ${message}` };
}
