import { z } from 'zod';
import type { Logger } from './logger';

/** docs/contract.md §8.2: without OTEL_EXPORTER_OTLP_ENDPOINT no SDK starts and every span is a no-op. */

/** Spread into every service's environment schema. */
export const tracingEnv = {
  // No user:password@: it is logged and kept in the chart's ConfigMap.
  OTEL_EXPORTER_OTLP_ENDPOINT: z
    .url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' })
    .refine(
      (value) => !/^[^:]+:\/\/[^/?#]*@/.test(value),
      'must not carry credentials (user:password@); send them in OTEL_EXPORTER_OTLP_HEADERS',
    )
    .optional(),
  OTEL_SERVICE_NAME: z
    .string()
    .regex(/^[A-Za-z0-9._-]{1,255}$/, 'must be letters, digits, ".", "_" or "-"')
    .optional(),
};

export interface TracingConfig {
  otlpEndpoint?: string;
  otelServiceName?: string;
}

export interface Tracing {
  /** Flushes buffered spans: the last step of the shutdown sequence. */
  shutdown(): Promise<void>;
}

export function otlpTracesUrl(endpoint: string): string {
  return `${endpoint.replace(/\/+$/, '')}/v1/traces`;
}

/**
 * Spans only (Prometheus and stdout have metrics and logs); the SDK is imported lazily as it pulls in every exporter.
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
