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
 * Spans are started explicitly at each hop, not by require-hook
 * auto-instrumentation, which jest's module loader bypasses. The W3C
 * propagator is used directly, not the global one, so with tracing off a hop
 * still passes its context on unchanged (docs/contract.md §5.5, §8.2).
 */

const tracer = trace.getTracer('@inventario/platform');
const w3c = new W3CTraceContextPropagator();

/** By lower-case name. */
export type TraceHeaders = Record<string, string>;

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

/** An outbox row's trace headers; undefined without a traceparent (a tracestate alone means nothing). */
export function eventTraceHeaders(context: { traceparent?: string; tracestate?: string }): TraceHeaders | undefined {
  if (!context.traceparent) return undefined;
  return context.tracestate
    ? { traceparent: context.traceparent, tracestate: context.tracestate }
    : { traceparent: context.traceparent };
}

/** `trace_id` and `span_id` of the active span, for log lines; empty outside a span. */
export function activeTraceFields(): { trace_id?: string; span_id?: string } {
  const spanContext = trace.getActiveSpan()?.spanContext();
  return spanContext && isSpanContextValid(spanContext)
    ? { trace_id: spanContext.traceId, span_id: spanContext.spanId }
    : {};
}

export interface SpanOptions {
  kind: SpanKind;
  attributes?: Attributes;
  parent?: Context;
}

export function startSpan(name: string, options: SpanOptions): { span: Span; ctx: Context } {
  const parent = options.parent ?? context.active();
  const span = tracer.startSpan(name, { kind: options.kind, attributes: options.attributes }, parent);
  return { span, ctx: trace.setSpan(parent, span) };
}

/** The message, never the stack: spans leave the process. */
function failSpan(span: Span, err: unknown): void {
  span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
}

/** `work` runs with the span active, so its log lines and child spans belong to it. */
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
