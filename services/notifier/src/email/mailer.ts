import { createHash } from 'node:crypto';
import { createTransport, type NodemailerError } from 'nodemailer';
import { SpanKind } from '@opentelemetry/api';
import { inSpan } from '@inventario/platform';
import type { RenderedEmail } from './templates';

/** Every wait is bounded so a send cannot hang; one outlasting ack_wait is covered by the message's heartbeat. */
const CONNECTION_TIMEOUT_MS = 10_000;
const GREETING_TIMEOUT_MS = 10_000;
const SOCKET_TIMEOUT_MS = 20_000;

export interface OutgoingEmail extends RenderedEmail {
  /** Sets the Message-ID. */
  eventId: string;
  /** In a header, for mail filters. */
  eventType: string;
}

export interface SentEmail {
  messageId: string;
  response: string;
}

export interface Mailer {
  /** Rejects with a NodemailerError. */
  send(email: OutgoingEmail): Promise<SentEmail>;
  verify(): Promise<void>;
  close(): void;
}

export interface MailerOptions {
  smtpUrl: string;
  from: string;
  to: readonly string[];
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

/** From the event id, so the rare second copy of an email (README, "exactly once") has the same Message-ID. */
export function messageIdFor(eventId: string): string {
  const local = /^[A-Za-z0-9._-]{1,200}$/.test(eventId) ? eventId : createHash('sha256').update(eventId).digest('hex');
  return `<${local}@inventario>`;
}

export interface SmtpFailure {
  permanent: boolean;
  reason: string;
}

/**
 * RFC 5321: 5xx is permanent (but 503), 4xx transient. Without a reply only
 * an unbuildable message is permanent; anything unknown is retried and, at
 * worst, dead-lettered after the last attempt.
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
