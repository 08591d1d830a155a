import pino from 'pino';
import { activeTraceFields } from './tracing-context';

export type Logger = pino.Logger;

/**
 * JSON logs on stdout, one object per line, `service` on every line, and
 * `trace_id` / `span_id` on every line written inside a span.
 * Credentials never reach a log: known secret-bearing keys are redacted.
 * `destination` replaces stdout (a test reading the lines it logs); each
 * line reaches its `write` as one string.
 */
export function createLogger(service: string, level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service },
      timestamp: pino.stdTimeFunctions.isoTime,
      mixin: activeTraceFields,
      redact: {
        paths: ['password', '*.password', 'authorization', '*.authorization', 'databaseUrl', '*.databaseUrl'],
        censor: '[redacted]',
      },
    },
    // Synchronous writes: nothing is buffered at exit. With the default
    // buffered destination, a process whose stdout reader died (the
    // launcher SIGKILLed) retried the EPIPE flush at exit forever and never
    // ended; a synchronous write fails once and the process exits.
    destination ?? pino.destination({ dest: 1, sync: true }),
  );
}
