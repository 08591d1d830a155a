import { SpanKind, trace } from '@opentelemetry/api';
import { extractTraceContext, inSpan, traceHeaders, type TraceHeaders } from './tracing-context';

/**
 * Event spans (OpenTelemetry messaging conventions). An outbox row keeps the
 * trace context of the call that wrote it in its headers; the relay's
 * PRODUCER span `publish <subject>` is that context's child and travels as
 * the message's `traceparent` header; a consumer's CONSUMER span
 * `process <subject>` is the child of the header's context. So one trace runs
 * from the public request to the email, across the commit and the stream.
 */

/** Attributes shared by both ends (`messaging.*`, still incubating in semconv, hence spelt out). */
function messagingAttributes(operation: 'send' | 'process', subject: string, messageId?: string) {
  return {
    'messaging.system': 'nats',
    'messaging.operation.type': operation,
    'messaging.destination.name': subject,
    ...(messageId ? { 'messaging.message.id': messageId } : {}),
  };
}

/**
 * Runs `publish` in a PRODUCER span, child of the context in `headers` (a
 * stored row's), and hands it the headers to send: the row's with the span's
 * own `traceparent`. With tracing off they are the row's, unchanged.
 */
export function inPublishSpan<T>(
  message: { subject: string; eventId: string; headers: TraceHeaders },
  publish: (headers: TraceHeaders) => Promise<T>,
): Promise<T> {
  const parent = extractTraceContext((name) => message.headers[name]);
  return inSpan(
    `publish ${message.subject}`,
    { kind: SpanKind.PRODUCER, parent, attributes: messagingAttributes('send', message.subject, message.eventId) },
    (span) => publish({ ...message.headers, ...traceHeaders(trace.setSpan(parent, span)) }),
  );
}

/** NATS message headers, as `MsgHdrs` reads them. */
export interface MessageHeaderReader {
  get(name: string): string;
}

/** The trace context of a message being handled. */
export interface ConsumeTrace {
  /**
   * `traceparent` (and `tracestate`) of the CONSUMER span: what the writes
   * the message causes carry on. With tracing off, the message's own,
   * unchanged (no context manager then, so the active context cannot carry
   * them: take them from here).
   */
  readonly headers: TraceHeaders;
}

/**
 * Runs `handle` in a CONSUMER span, child of the context in the message's
 * `traceparent` header (a new trace without one), active while it runs, and
 * hands it that span's trace context.
 */
export function inConsumeSpan<T>(
  message: { subject: string; headers?: MessageHeaderReader },
  handle: (trace: ConsumeTrace) => Promise<T>,
): Promise<T> {
  const header = (name: string) => message.headers?.get(name) || undefined;
  const attributes = messagingAttributes('process', message.subject, header('Nats-Msg-Id'));
  const parent = extractTraceContext(header);
  return inSpan(`process ${message.subject}`, { kind: SpanKind.CONSUMER, parent, attributes }, (span) => {
    // Built on first read: most handlers write nothing that carries them.
    let headers: TraceHeaders | undefined;
    return handle({
      get headers() {
        return (headers ??= traceHeaders(trace.setSpan(parent, span)));
      },
    });
  });
}
