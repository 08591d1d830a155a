import { SpanKind, trace } from '@opentelemetry/api';
import { extractTraceContext, inSpan, traceHeaders, type TraceHeaders } from './tracing-context';

/**
 * An outbox row keeps its writer's trace context, the relay's PRODUCER span
 * is its child, and consumers continue from the message header: one trace
 * runs from the public request to the email.
 */

/** Spelt out: `messaging.*` is still incubating in semconv. */
function messagingAttributes(operation: 'send' | 'process', subject: string, messageId?: string) {
  return {
    'messaging.system': 'nats',
    'messaging.operation.type': operation,
    'messaging.destination.name': subject,
    ...(messageId ? { 'messaging.message.id': messageId } : {}),
  };
}

/** With tracing off `publish` gets the row's headers unchanged. */
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

export interface MessageHeaderReader {
  get(name: string): string;
}

export interface ConsumeTrace {
  /** What the message's writes carry on; with tracing off there is no context manager, so take them from here. */
  readonly headers: TraceHeaders;
}

export function inConsumeSpan<T>(
  message: { subject: string; headers?: MessageHeaderReader },
  handle: (trace: ConsumeTrace) => Promise<T>,
): Promise<T> {
  const header = (name: string) => message.headers?.get(name) || undefined;
  const attributes = messagingAttributes('process', message.subject, header('Nats-Msg-Id'));
  const parent = extractTraceContext(header);
  return inSpan(`process ${message.subject}`, { kind: SpanKind.CONSUMER, parent, attributes }, (span) => {
    let headers: TraceHeaders | undefined;
    return handle({
      get headers() {
        return (headers ??= traceHeaders(trace.setSpan(parent, span)));
      },
    });
  });
}
