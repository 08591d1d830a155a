/**
 * One trace across the whole chain (docs/contract.md §5.5, §7.4; issue 5): a
 * REST create through the BFF, its gRPC call to producto-svc, the outbox row,
 * the relay's JetStream publish and the notifier's email, all four services in
 * this process against the real MariaDB, NATS and an SMTP sink. Spans are
 * collected by an in-memory exporter behind a NodeTracerProvider registered
 * here, as the NodeSDK registers one in a service process. The BFF logs at info
 * into the test, to check its log lines carry the trace.
 */
import { SpanKind } from '@opentelemetry/api';
import {
  InMemorySpanExporter,
  NodeTracerProvider,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-node';
import { createLogger } from '@inventario/platform';
import { waitFor } from '@inventario/testkit';
import type { TestStack } from '@inventario/testkit/stack';
import type { SmtpSink } from '@inventario/testkit/smtp-sink';
import { startE2eSystem, type E2eSystem } from './support/system';

const exporter = new InMemorySpanExporter();
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });

let system: E2eSystem;
let stack: TestStack;
let sink: SmtpSink;
/** The BFF's log lines, parsed. */
const bffLog: Array<Record<string, unknown>> = [];

beforeAll(async () => {
  provider.register();
  // The platform's logger (its mixin adds the trace fields), writing into bffLog instead of stdout.
  const bffLogger = createLogger('bff', 'info', {
    write: (line: string) => void bffLog.push(JSON.parse(line) as Record<string, unknown>),
  });
  system = await startE2eSystem('tracing', { bffLogger });
  ({ stack, sink } = system);
});

afterAll(async () => {
  await system?.close();
  await provider.shutdown();
});

/** The one finished span of `traceId` with this kind and name. */
function spanOf(traceId: string, kind: SpanKind, name: string): ReadableSpan {
  const found = exporter
    .getFinishedSpans()
    .filter((s) => s.spanContext().traceId === traceId && s.kind === kind && s.name === name);
  expect(found.map((s) => s.name)).toEqual([name]);
  return found[0]!;
}

function expectChildOf(child: ReadableSpan, parent: ReadableSpan): void {
  expect(child.parentSpanContext?.spanId).toBe(parent.spanContext().spanId);
}

test('one REST create is one trace: HTTP, gRPC client and server, outbox publish, consume, email send', async () => {
  // The client's own span: the BFF's HTTP span must continue its trace.
  const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
  const clientSpanId = '00f067aa0ba902b7';
  const res = await stack.request('POST', '/api/productos', {
    body: { nombre: 'Nivel láser', precio: 45.5, cantidadEnStock: 3 },
    headers: { traceparent: `00-${traceId}-${clientSpanId}-01` },
  });
  expect(res.status).toBe(201);
  const id = String(res.body.id);

  const creado = `${stack.namespace.prefix}.producto.creado`;
  // The email span ends when the SMTP server accepted it; the consumer's once the message is acked.
  await waitFor(
    () =>
      exporter.getFinishedSpans().some((s) => s.spanContext().traceId === traceId && s.name === 'send email') ||
      undefined,
    'the notifier to send the email',
  );
  const email = spanOf(traceId, SpanKind.CLIENT, 'send email');
  // The notifier's consume span is the email's parent (bodega-svc's projection of known products consumes ProductoCreado too).
  const consume = await waitFor(
    () => exporter.getFinishedSpans().find((s) => s.spanContext().spanId === email.parentSpanContext?.spanId),
    "the notifier's consume span to end",
  );
  expect([consume.kind, consume.name]).toEqual([SpanKind.CONSUMER, `process ${creado}`]);

  const http = spanOf(traceId, SpanKind.SERVER, 'POST /api/productos');
  const grpcClient = spanOf(traceId, SpanKind.CLIENT, 'inventario.v1.ProductoService/CreateProducto');
  const grpcServer = spanOf(traceId, SpanKind.SERVER, 'inventario.v1.ProductoService/CreateProducto');
  const publish = spanOf(traceId, SpanKind.PRODUCER, `publish ${creado}`);

  expect(http.parentSpanContext?.spanId).toBe(clientSpanId);
  expectChildOf(grpcClient, http);
  expectChildOf(grpcServer, grpcClient);
  expectChildOf(publish, grpcServer);
  expectChildOf(consume, publish);
  expectChildOf(email, consume);

  expect(http.attributes).toMatchObject({ 'http.route': '/api/productos', 'http.response.status_code': 201 });
  expect(grpcClient.attributes['rpc.status_code']).toBe('OK');
  expect(grpcServer.attributes['rpc.status_code']).toBe('OK');
  const [event] = (await stack.settledEvents()).filter(
    (e) => e.subject === creado && e.body.data.productoId === Number(id),
  );
  expect(publish.attributes['messaging.message.id']).toBe(event!.body.id);
  expect(email.attributes['inventario.event.id']).toBe(event!.body.id);
  expect(sink.received.filter((m) => m.headers.get('x-inventario-event-id') === event!.body.id)).toHaveLength(1);
});

test('the NATS message carries the traceparent of its publish span', async () => {
  const res = await stack.request('POST', '/api/productos', {
    body: { nombre: 'Escuadra', precio: 7, cantidadEnStock: 10 },
  });
  expect(res.status).toBe(201);
  const creado = `${stack.namespace.prefix}.producto.creado`;
  const [event] = (await stack.settledEvents()).filter(
    (e) => e.subject === creado && e.body.data.productoId === res.body.id,
  );

  const traceparent = event!.headers.traceparent;
  expect(traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
  const [, traceId, spanId] = traceparent!.split('-');
  // Without a client traceparent the trace starts at the BFF's HTTP span.
  const http = spanOf(traceId!, SpanKind.SERVER, 'POST /api/productos');
  expect(http.parentSpanContext).toBeUndefined();
  const publish = spanOf(traceId!, SpanKind.PRODUCER, `publish ${creado}`);
  expect(publish.spanContext().spanId).toBe(spanId);
});

test('an error the error middleware answers is still named by its route template, and the request log line carries the trace', async () => {
  const traceId = '5bf92f3577b34da6a3ce929d0e0e4736';
  const res = await stack.request('GET', '/api/productos/999999', {
    headers: { traceparent: `00-${traceId}-00f067aa0ba902b7-01` },
  });
  expect(res.status).toBe(404);

  // Express reset req.baseUrl when the NotFound left the productos router; the template was taken before.
  await waitFor(
    () => exporter.getFinishedSpans().some((s) => s.spanContext().traceId === traceId && s.kind === SpanKind.SERVER),
    'the HTTP span to end',
  );
  const http = spanOf(traceId, SpanKind.SERVER, 'GET /api/productos/:id');
  expect(http.attributes).toMatchObject({ 'http.route': '/api/productos/:id', 'http.response.status_code': 404 });
  // NOT_FOUND is the caller's error: the producto-svc SERVER span is not failed, the BFF's CLIENT span is.
  expect(spanOf(traceId, SpanKind.SERVER, 'inventario.v1.ProductoService/GetProducto').status.code).toBe(0);
  expect(spanOf(traceId, SpanKind.CLIENT, 'inventario.v1.ProductoService/GetProducto').status.code).toBe(2);

  // Written in the response's close listener, in the span's context.
  const line = await waitFor(
    () => bffLog.find((l) => l.msg === 'request' && l.path === '/api/productos/999999'),
    "the request's log line",
  );
  expect(line).toMatchObject({ status: 404, trace_id: traceId, span_id: http.spanContext().spanId });
});
