import {
  context,
  isSpanContextValid,
  ROOT_CONTEXT,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
  type SpanKind,
  type TextMapGetter,
  type TextMapSetter,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';

/**
 * The trace context plumbing every span of Inventario uses. Spans are
 * started explicitly at each hop (HTTP in, gRPC out and in, outbox publish,
 * NATS consume, email send) rather than by require-hook auto-instrumentation,
 * so the same code traces the built processes and the in-process tests
 * (jest's module loader bypasses require hooks).
 *
 * W3C trace context (`traceparent`, `tracestate`) is read and written with
 * the W3C propagator itself, not the global one: with tracing off (no SDK,
 * so the no-op tracer) a hop still passes the context it received on
 * unchanged, as docs/contract.md §5.5 and §8.2 ask of the event headers.
 */

const tracer = trace.getTracer('@inventario/platform');
const w3c = new W3CTraceContextPropagator();

/** Header or metadata values by lower-case name. */
export type TraceHeaders = Record<string, string>;

/** Reads one header of a carrier (HTTP headers, gRPC metadata, NATS headers, a stored row). */
export type HeaderLookup = (name: string) => string | undefined;

const lookupGetter: TextMapGetter<HeaderLookup> = {
  get: (lookup, key) => lookup(key),
  keys: () => w3c.fields(),
};

const recordSetter: TextMapSetter<TraceHeaders> = {
  set: (carrier, key, value) => {
    carrier[key] = value;
  },
};

/** The context a carrier names as parent (ROOT when it carries no valid traceparent). */
export function extractTraceContext(lookup: HeaderLookup): Context {
  return w3c.extract(ROOT_CONTEXT, lookup, lookupGetter);
}

/** `traceparent` (and `tracestate`) of the span in `ctx`; empty when there is no valid one. */
export function traceHeaders(ctx: Context = context.active()): TraceHeaders {
  const headers: TraceHeaders = {};
  w3c.inject(ctx, headers, recordSetter);
  return headers;
}

/**
 * The trace headers an outbox row stores for a write made in `context`:
 * `traceparent`, with `tracestate` when there is one (tracestate means
 * nothing without its traceparent); undefined without a traceparent.
 */
export function eventTraceHeaders(context: { traceparent?: string; tracestate?: string }): TraceHeaders | undefined {
  if (!context.traceparent) return undefined;
  return context.tracestate ? { traceparent: context.traceparent, tracestate: context.tracestate } : { traceparent: context.traceparent };
}

/** `trace_id` and `span_id` of the active span, for log lines; empty outside a span. */
export function activeTraceFields(): { trace_id?: string; span_id?: string } {
  const spanContext = trace.getActiveSpan()?.spanContext();
  return spanContext && isSpanContextValid(spanContext) ? { trace_id: spanContext.traceId, span_id: spanContext.spanId } : {};
}

export interface SpanOptions {
  kind: SpanKind;
  attributes?: Attributes;
  /** The parent; default the active context. */
  parent?: Context;
}

/** Starts a span and returns it with the context that has it active. */
export function startSpan(name: string, options: SpanOptions): { span: Span; ctx: Context } {
  const parent = options.parent ?? context.active();
  const span = tracer.startSpan(name, { kind: options.kind, attributes: options.attributes }, parent);
  return { span, ctx: trace.setSpan(parent, span) };
}

/** Marks a span failed with the error's message (never its stack: spans leave the process). */
function failSpan(span: Span, err: unknown): void {
  span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
}

/**
 * Runs `work` inside a new span (active while it runs, so its log lines and
 * child spans belong to it); a rejection marks the span failed and is rethrown.
 */
export async function inSpan<T>(name: string, options: SpanOptions, work: (span: Span) => Promise<T>): Promise<T> {
  const { span, ctx } = startSpan(name, options);
  try {
    return await context.with(ctx, () => work(span));
  } catch (err) {
    failSpan(span, err);
    throw err;
  } finally {
    span.end();
  }
}
