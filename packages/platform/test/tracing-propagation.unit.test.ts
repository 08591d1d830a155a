/**
 * How trace context crosses each hop (tracing-*.ts), without a network: the
 * gRPC server span read from metadata, the relay's publish span and the
 * traceparent it hands to the NATS message, the consumer span read from the
 * message headers, the HTTP server span of the BFF's middleware. First with tracing off (no provider: the context a hop
 * received passes on unchanged), then with a provider registered.
 */
import { EventEmitter } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Metadata, status, type sendUnaryData, type ServerUnaryCall } from '@grpc/grpc-js';
import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import {
  createLogger,
  httpServerTracing,
  inConsumeSpan,
  NotFoundError,
  unary,
  type CallContext,
} from '@inventario/platform';
import { activeTraceFields, startSpan, traceHeaders } from '../src/tracing-context';
import { endRpcSpan, startGrpcServerSpan } from '../src/tracing-grpc';
import { inPublishSpan } from '../src/tracing-nats';

const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const PARENT_SPAN_ID = 'b7ad6b7169203331';
const TRACEPARENT = `00-${TRACE_ID}-${PARENT_SPAN_ID}-01`;
const TRACESTATE = 'vendor=abc123';

/** The context a handler wrapped by `unary` receives for a call with this metadata (its values read out), once the call is answered. */
function handlerContextOf(entries: Record<string, string>): Promise<CallContext> {
  // A call is an EventEmitter ('cancelled'); this one is never cancelled.
  const call = Object.assign(new EventEmitter(), grpcCall(entries), { request: {} }) as unknown as ServerUnaryCall<
    unknown,
    unknown
  >;
  return new Promise<CallContext>((resolve, reject) => {
    let seen: CallContext | undefined;
    const callback: sendUnaryData<unknown> = (err) => (err ? reject(new Error(err.details)) : resolve(seen!));
    unary(createLogger('tracing-test', 'silent'), 'CreateProducto', (_request, ctx: CallContext) => {
      // The cancellation signal is there, not aborted; the request metadata is the call's own (not a trace field); the rest is compared by value.
      const { signal, metadata, idempotency, ...rest } = ctx;
      if (metadata && metadata !== call.metadata) return Promise.reject(new Error('expected the call metadata itself'));
      if (idempotency !== undefined) return Promise.reject(new Error('expected no idempotency key'));
      if (!(signal instanceof AbortSignal) || signal.aborted)
        return Promise.reject(new Error('expected a live cancellation signal'));
      seen = rest;
      return Promise.resolve({});
    })(call, callback);
  });
}

function grpcCall(
  entries: Record<string, string>,
): Pick<ServerUnaryCall<unknown, unknown>, 'metadata' | 'getPath' | 'getDeadline'> {
  const metadata = new Metadata();
  for (const [key, value] of Object.entries(entries)) metadata.set(key, value);
  // A call without a deadline, as grpc-js says it (Infinity).
  return { metadata, getPath: () => '/inventario.v1.ProductoService/CreateProducto', getDeadline: () => Infinity };
}

/** An HTTP exchange as the middleware sees it (express sets `baseUrl` and `route` once a route matched). */
function httpExchange(method: string, url: string, headers: Record<string, string>) {
  const req = Object.assign(new EventEmitter(), { method, url, headers }) as unknown as IncomingMessage & {
    baseUrl?: string;
    route?: { path: string };
  };
  const res = Object.assign(new EventEmitter(), { statusCode: 200 }) as unknown as ServerResponse;
  return { req, res };
}

/** NATS-style headers: `get` answers "" for a missing one, as MsgHdrs does. */
function natsHeaders(entries: Record<string, string>) {
  return { get: (name: string) => entries[name] ?? '' };
}

describe('with tracing off (no SDK started)', () => {
  test('a gRPC call passes the caller traceparent on as is', () => {
    expect(startGrpcServerSpan(grpcCall({ traceparent: TRACEPARENT })).headers).toEqual({ traceparent: TRACEPARENT });
    expect(startGrpcServerSpan(grpcCall({})).headers).toEqual({});
  });

  test('a gRPC call passes the caller tracestate on with its traceparent, to the handler as well', async () => {
    expect(startGrpcServerSpan(grpcCall({ traceparent: TRACEPARENT, tracestate: TRACESTATE })).headers).toEqual({
      traceparent: TRACEPARENT,
      tracestate: TRACESTATE,
    });
    expect(await handlerContextOf({ traceparent: TRACEPARENT, tracestate: TRACESTATE })).toEqual({
      usuario: 'system',
      traceparent: TRACEPARENT,
      tracestate: TRACESTATE,
    });
    expect(await handlerContextOf({})).toEqual({ usuario: 'system' });
  });

  test('a consumer is handed the message trace context, though no context manager carries it', async () => {
    const handed = await inConsumeSpan(
      { subject: 's', headers: natsHeaders({ traceparent: TRACEPARENT, tracestate: TRACESTATE }) },
      (trace) => Promise.resolve({ handed: trace.headers, active: traceHeaders() }),
    );
    expect(handed.handed).toEqual({ traceparent: TRACEPARENT, tracestate: TRACESTATE });
    // What the consumer read before: the active context, empty without a context manager.
    expect(handed.active).toEqual({});
    expect(
      await inConsumeSpan({ subject: 's', headers: natsHeaders({}) }, (trace) => Promise.resolve(trace.headers)),
    ).toEqual({});
  });

  test('an HTTP request is passed on without a span', () => {
    const { req, res } = httpExchange('GET', '/api/productos/7', { traceparent: TRACEPARENT });
    let called = false;
    httpServerTracing()(req, res, () => {
      called = true;
    });
    expect(called).toBe(true);
    expect(res.listenerCount('close')).toBe(0);
  });

  test('the relay publishes the row headers unchanged', async () => {
    const row = { traceparent: TRACEPARENT, other: 'kept' };
    const sent = await inPublishSpan(
      { subject: 'inventario.producto.creado', eventId: 'e1', headers: row },
      (headers) => Promise.resolve(headers),
    );
    expect(sent).toEqual(row);
    const bare = await inPublishSpan({ subject: 'inventario.producto.creado', eventId: 'e2', headers: {} }, (headers) =>
      Promise.resolve(headers),
    );
    expect(bare).toEqual({});
  });

  test('log lines carry no trace fields', async () => {
    await inConsumeSpan({ subject: 's', headers: natsHeaders({ traceparent: TRACEPARENT }) }, () => {
      expect(activeTraceFields()).toEqual({});
      return Promise.resolve();
    });
  });
});

describe('with a tracer provider registered', () => {
  const exporter = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });

  beforeAll(() => provider.register());
  afterAll(async () => {
    await provider.shutdown();
    trace.disable();
    context.disable();
    propagation.disable();
  });
  beforeEach(() => exporter.reset());

  test('a gRPC call runs in a SERVER span, child of the metadata traceparent, and passes its own on', () => {
    const traced = startGrpcServerSpan(grpcCall({ traceparent: TRACEPARENT }));
    const inside = traced.run(() => activeTraceFields());
    traced.span.end();

    const [span] = exporter.getFinishedSpans();
    expect(span).toMatchObject({ name: 'inventario.v1.ProductoService/CreateProducto', kind: SpanKind.SERVER });
    expect(span!.spanContext().traceId).toBe(TRACE_ID);
    expect(span!.parentSpanContext?.spanId).toBe(PARENT_SPAN_ID);
    expect(traced.headers.traceparent).toBe(`00-${TRACE_ID}-${span!.spanContext().spanId}-01`);
    expect(inside).toEqual({ trace_id: TRACE_ID, span_id: span!.spanContext().spanId });
  });

  test("a handler's context carries its SERVER span's traceparent, and the caller's tracestate with it", async () => {
    const ctx = await handlerContextOf({ traceparent: TRACEPARENT, tracestate: TRACESTATE });
    const [span] = exporter.getFinishedSpans();
    expect(ctx).toEqual({
      usuario: 'system',
      traceparent: `00-${TRACE_ID}-${span!.spanContext().spanId}-01`,
      tracestate: TRACESTATE,
    });
  });

  // OpenTelemetry RPC conventions: a CLIENT span fails on any code but OK; a SERVER span only on the server's own failures.
  test.each([
    ['NOT_FOUND', 'UNSET'],
    ['INVALID_ARGUMENT', 'UNSET'],
    ['ALREADY_EXISTS', 'UNSET'],
    ['FAILED_PRECONDITION', 'UNSET'],
    ['CANCELLED', 'UNSET'],
    ['UNKNOWN', 'ERROR'],
    ['DEADLINE_EXCEEDED', 'ERROR'],
    ['UNIMPLEMENTED', 'ERROR'],
    ['INTERNAL', 'ERROR'],
    ['UNAVAILABLE', 'ERROR'],
    ['DATA_LOSS', 'ERROR'],
    ['OK', 'UNSET'],
  ] as const)('an RPC ending %s leaves its SERVER span %s; its CLIENT span is ERROR unless OK', (name, server) => {
    for (const side of ['server', 'client'] as const) {
      endRpcSpan(
        startSpan('rpc', { kind: side === 'server' ? SpanKind.SERVER : SpanKind.CLIENT }).span,
        side,
        status[name],
        'details',
      );
    }
    const [serverSpan, clientSpan] = exporter.getFinishedSpans();
    expect(serverSpan!.attributes['rpc.status_code']).toBe(name);
    expect(serverSpan!.status.code).toBe(SpanStatusCode[server]);
    expect(clientSpan!.status.code).toBe(name === 'OK' ? SpanStatusCode.UNSET : SpanStatusCode.ERROR);
  });

  test('a NOT_FOUND a handler answers leaves its SERVER span unset; an unexpected failure marks it ERROR', async () => {
    const answer = (failure: Error) =>
      new Promise<void>((resolve) => {
        const call = Object.assign(new EventEmitter(), grpcCall({}), { request: {} }) as unknown as ServerUnaryCall<
          unknown,
          unknown
        >;
        unary(createLogger('tracing-test', 'silent'), 'GetProducto', () => Promise.reject(failure))(call, () =>
          resolve(),
        );
      });
    await answer(new NotFoundError('no existe'));
    await answer(new Error('boom'));
    expect(exporter.getFinishedSpans().map((s) => [s.attributes['rpc.status_code'], s.status.code])).toEqual([
      ['NOT_FOUND', SpanStatusCode.UNSET],
      ['INTERNAL', SpanStatusCode.ERROR],
    ]);
  });

  test('the relay publish span is the child of the row and its traceparent is the one the message carries', async () => {
    const sent = await inPublishSpan(
      { subject: 'inventario.producto.creado', eventId: 'e1', headers: { traceparent: TRACEPARENT, other: 'kept' } },
      (headers) => Promise.resolve(headers),
    );

    const [span] = exporter.getFinishedSpans();
    expect(span).toMatchObject({ name: 'publish inventario.producto.creado', kind: SpanKind.PRODUCER });
    expect(span!.attributes).toMatchObject({
      'messaging.system': 'nats',
      'messaging.destination.name': 'inventario.producto.creado',
      'messaging.message.id': 'e1',
    });
    expect(span!.parentSpanContext?.spanId).toBe(PARENT_SPAN_ID);
    expect(sent).toEqual({ traceparent: `00-${TRACE_ID}-${span!.spanContext().spanId}-01`, other: 'kept' });
  });

  test('a failed publish fails its span and rejects', async () => {
    const failing = inPublishSpan({ subject: 's', eventId: 'e', headers: {} }, () =>
      Promise.reject(new Error('no responders')),
    );
    await expect(failing).rejects.toThrow('no responders');
    expect(exporter.getFinishedSpans()[0]!.status).toMatchObject({ code: 2, message: 'no responders' });
  });

  test('a consumer runs in a CONSUMER span, child of the message traceparent, active for its logs and spans', async () => {
    const headers = natsHeaders({ traceparent: TRACEPARENT, 'Nats-Msg-Id': 'e9' });
    const inside = await inConsumeSpan({ subject: 'inventario.producto.creado', headers }, (traced) =>
      Promise.resolve({ fields: activeTraceFields(), headers: traceHeaders(), handed: traced.headers }),
    );

    const [span] = exporter.getFinishedSpans();
    expect(span).toMatchObject({ name: 'process inventario.producto.creado', kind: SpanKind.CONSUMER });
    expect(span!.attributes['messaging.message.id']).toBe('e9');
    expect(span!.parentSpanContext?.spanId).toBe(PARENT_SPAN_ID);
    expect(inside.fields).toEqual({ trace_id: TRACE_ID, span_id: span!.spanContext().spanId });
    expect(inside.headers.traceparent).toBe(`00-${TRACE_ID}-${span!.spanContext().spanId}-01`);
    expect(inside.handed).toEqual(inside.headers);
  });

  test('a message without traceparent starts a new trace', async () => {
    await inConsumeSpan({ subject: 's', headers: natsHeaders({}) }, () => Promise.resolve());
    const [span] = exporter.getFinishedSpans();
    expect(span!.parentSpanContext).toBeUndefined();
    expect(span!.spanContext().traceId).not.toBe(TRACE_ID);
  });

  test('an HTTP request runs in a SERVER span named by its route template, child of the client traceparent', () => {
    const { req, res } = httpExchange('PUT', '/api/productos/7?x=1', { traceparent: TRACEPARENT });
    let inside = {};
    httpServerTracing()(req, res, () => {
      inside = activeTraceFields();
    });
    // Express matches the route inside the router mounted at /api/productos...
    req.baseUrl = '/api/productos';
    req.route = { path: '/:id' };
    // ...and resets baseUrl when the error (a 404 here) leaves the router for the error middleware, before the answer goes out.
    req.baseUrl = '';
    res.statusCode = 404;
    res.emit('close');

    const [span] = exporter.getFinishedSpans();
    expect(span).toMatchObject({ name: 'PUT /api/productos/:id', kind: SpanKind.SERVER });
    expect(span!.attributes).toMatchObject({
      'http.request.method': 'PUT',
      'url.path': '/api/productos/7',
      'http.route': '/api/productos/:id',
      'http.response.status_code': 404,
    });
    expect(span!.parentSpanContext?.spanId).toBe(PARENT_SPAN_ID);
    expect(inside).toEqual({ trace_id: TRACE_ID, span_id: span!.spanContext().spanId });
  });

  test('a request no route matched is named by its method only; an untraced path gets no span', () => {
    const unmatched = httpExchange('GET', '/nada', {});
    httpServerTracing()(unmatched.req, unmatched.res, () => undefined);
    unmatched.res.emit('close');
    const probe = httpExchange('GET', '/actuator/health/liveness', {});
    let inside = {};
    httpServerTracing({ untraced: (path) => path.startsWith('/actuator/health') })(probe.req, probe.res, () => {
      inside = activeTraceFields();
    });
    probe.res.emit('close');

    expect(exporter.getFinishedSpans().map((s) => s.name)).toEqual(['GET']);
    expect(inside).toEqual({});
  });
});
