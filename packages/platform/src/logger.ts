import pino from 'pino';
import { REDACTED, redactUrlCredentials } from './redact';
import { activeTraceFields } from './tracing-context';

export type Logger = pino.Logger;

/**
 * JSON lines on stdout with `service` and, inside a span, `trace_id`/`span_id`.
 * URL userinfo is redacted from the finished line, since a driver may echo a URL we never logged.
 */
export function createLogger(service: string, level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service },
      timestamp: pino.stdTimeFunctions.isoTime,
      mixin: activeTraceFields,
      redact: {
        paths: [
          'password',
          '*.password',
          'authorization',
          '*.authorization',
          ...['databaseUrl', 'natsUrl', 'smtpUrl'].flatMap((k) => [k, `*.${k}`]),
        ],
        censor: REDACTED,
      },
      hooks: { streamWrite: redactUrlCredentials },
    },
    // Synchronous: with a buffered destination, a process whose stdout reader died retried the EPIPE flush at exit
    // forever.
    destination ?? pino.destination({ dest: 1, sync: true }),
  );
}
