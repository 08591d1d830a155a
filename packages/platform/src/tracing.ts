import { z } from 'zod';
import type { Logger } from './logger';

/**
 * Tracing of one process (docs/contract.md §8.2): with
 * OTEL_EXPORTER_OTLP_ENDPOINT set, the OpenTelemetry NodeSDK exports spans over
 * OTLP/HTTP to `<endpoint>/v1/traces` (the variable's meaning in the
 * OpenTelemetry spec); unset, no SDK starts and every span is a no-op. The
 * spans themselves are started explicitly (tracing-*.ts), so no
 * auto-instrumentation is loaded.
 */

/** The tracing variables of every service's environment schema (spread into its z.object). */
export const tracingEnv = {
  // OTLP/HTTP collector base URL, e.g. http://otel-collector:4318; tracing is off when unset.
  // Never with user:password@: it is logged and kept in the chart's ConfigMap (send credentials as OTEL_EXPORTER_OTLP_HEADERS).
  OTEL_EXPORTER_OTLP_ENDPOINT: z
    .url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' })
    .refine((value) => !/^[^:]+:\/\/[^/?#]*@/.test(value), 'must not carry credentials (user:password@); send them in OTEL_EXPORTER_OTLP_HEADERS')
    .optional(),
  // service.name of the spans; default the service's own name.
  OTEL_SERVICE_NAME: z.string().regex(/^[A-Za-z0-9._-]{1,255}$/, 'must be letters, digits, ".", "_" or "-"').optional(),
};

/** The tracing part of a parsed configuration. */
export interface TracingConfig {
  /** OTEL_EXPORTER_OTLP_ENDPOINT; tracing is off without it. */
  otlpEndpoint?: string;
  /** OTEL_SERVICE_NAME. */
  otelServiceName?: string;
}

/** The started tracer of this process. */
export interface Tracing {
  /** Exports the spans still buffered and stops; the last step of the shutdown sequence. */
  shutdown(): Promise<void>;
}

/** The OTLP/HTTP traces URL of a base endpoint (`http://collector:4318` -> `http://collector:4318/v1/traces`). */
export function otlpTracesUrl(endpoint: string): string {
  return `${endpoint.replace(/\/+$/, '')}/v1/traces`;
}

/**
 * Starts the NodeSDK for `name` when the configuration names an endpoint,
 * else resolves undefined (tracing off): W3C trace-context propagation, the
 * async-hooks context manager, batched OTLP/HTTP export; no metrics or logs
 * (Prometheus and stdout have those). The SDK is loaded only when needed:
 * it pulls in exporters for every signal.
 */
export async function startTracing(name: string, config: TracingConfig, logger: Logger): Promise<Tracing | undefined> {
  if (!config.otlpEndpoint) return undefined;
  const [{ NodeSDK }, { OTLPTraceExporter }, { W3CTraceContextPropagator }] = await Promise.all([
    import('@opentelemetry/sdk-node'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/core'),
  ]);
  const serviceName = config.otelServiceName ?? name;
  const url = otlpTracesUrl(config.otlpEndpoint);
  const sdk = new NodeSDK({
    serviceName,
    traceExporter: new OTLPTraceExporter({ url }),
    textMapPropagator: new W3CTraceContextPropagator(),
    instrumentations: [],
    metricReaders: [],
    logRecordProcessors: [],
  });
  sdk.start();
  // Origin and path only: a URL may carry credentials.
  const { origin, pathname } = new URL(url);
  logger.info({ otlpTracesUrl: `${origin}${pathname}`, serviceName }, 'tracing on: spans exported over OTLP/HTTP');
  return { shutdown: () => sdk.shutdown() };
}
