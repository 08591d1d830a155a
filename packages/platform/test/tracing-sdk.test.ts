/**
 * Tracing in a real process, as a service's main.ts runs it: startTracing
 * starts the NodeSDK when an OTLP endpoint is configured, spans reach the
 * collector over OTLP/HTTP (JSON) at `<endpoint>/v1/traces` when the
 * process shuts tracing down, and every log line written inside a span
 * carries that span's trace_id and span_id. The collector is an HTTP
 * server in this test.
 */
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { otlpTracesUrl } from '../src/tracing';

const PLATFORM = path.join(__dirname, '..', 'dist', 'index.js');
// startTracing (a service's main calls it), required from its compiled module.
const TRACING = path.join(__dirname, '..', 'dist', 'tracing.js');

// Logs outside and inside a span, then shuts tracing down (the last shutdown step of a service's main).
const CHILD = `
const { createLogger, inSpan } = require(${JSON.stringify(PLATFORM)});
const { startTracing } = require(${JSON.stringify(TRACING)});
(async () => {
  const logger = createLogger('t-svc', 'info');
  const tracing = await startTracing('t-svc', { otlpEndpoint: process.argv[1], otelServiceName: process.argv[2] }, logger);
  logger.info('outside a span');
  await inSpan('unit of work', { kind: 0 }, async () => logger.info('inside a span'));
  await tracing?.shutdown();
})();
`;

interface ExportedSpan {
  traceId: string;
  spanId: string;
  name: string;
  serviceName?: string;
}

let collector: Server;
let endpoint: string;
const requests: Array<{ path?: string; contentType?: string }> = [];
const exported: ExportedSpan[] = [];

beforeAll(async () => {
  collector = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      requests.push({ path: req.url, contentType: req.headers['content-type'] });
      const parsed = JSON.parse(body) as {
        resourceSpans: Array<{
          resource: { attributes: Array<{ key: string; value: { stringValue?: string } }> };
          scopeSpans: Array<{ spans: Array<{ traceId: string; spanId: string; name: string }> }>;
        }>;
      };
      for (const rs of parsed.resourceSpans) {
        const serviceName = rs.resource.attributes.find((a) => a.key === 'service.name')?.value.stringValue;
        for (const ss of rs.scopeSpans)
          for (const s of ss.spans) exported.push({ traceId: s.traceId, spanId: s.spanId, name: s.name, serviceName });
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(collector.address() as AddressInfo).port}/`;
});

afterAll(async () => {
  await new Promise((resolve) => collector.close(resolve));
});

function runChild(args: string[]): Promise<{ code: number | null; lines: Array<Record<string, unknown>> }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', CHILD, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => {
      const lines = out
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      resolve({ code, lines });
    });
  });
}

test('otlpTracesUrl appends the OTLP/HTTP traces path to the base endpoint', () => {
  expect(otlpTracesUrl('http://collector:4318')).toBe('http://collector:4318/v1/traces');
  expect(otlpTracesUrl('http://collector:4318/')).toBe('http://collector:4318/v1/traces');
  expect(otlpTracesUrl('https://otel.example.com/prefix')).toBe('https://otel.example.com/prefix/v1/traces');
});

test('a process with an OTLP endpoint exports its spans, and its log lines inside a span name the span', async () => {
  const { code, lines } = await runChild([endpoint, 'inventario-test']);
  expect(code).toBe(0);

  expect(requests.map((r) => r.path)).toContain('/v1/traces');
  expect(requests[0]!.contentType).toContain('application/json');
  const span = exported.find((s) => s.name === 'unit of work');
  expect(span).toBeDefined();
  expect(span!.serviceName).toBe('inventario-test');

  const inside = lines.find((l) => l.msg === 'inside a span');
  const outside = lines.find((l) => l.msg === 'outside a span');
  expect(inside).toMatchObject({ service: 't-svc', trace_id: span!.traceId, span_id: span!.spanId });
  expect(outside).toBeDefined();
  expect(outside).not.toHaveProperty('trace_id');
  expect(outside).not.toHaveProperty('span_id');
});

test('without an endpoint no SDK starts: nothing is exported and log lines carry no trace fields', async () => {
  const before = requests.length;
  const { code, lines } = await runChild(['', '']);
  expect(code).toBe(0);
  expect(requests).toHaveLength(before);
  const inside = lines.find((l) => l.msg === 'inside a span');
  expect(inside).toBeDefined();
  expect(inside).not.toHaveProperty('trace_id');
});
