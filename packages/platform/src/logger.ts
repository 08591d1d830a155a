import pino from 'pino';
import { REDACTED, redactUrlCredentials } from './redact';
import { activeTraceFields } from './tracing-context';

export type Logger = pino.Logger;

/**
 * JSON logs on stdout, one object per line, `service` on every line, and
 * `trace_id` / `span_id` on every line written inside a span.
 * Credentials never reach a log: known secret-bearing keys are redacted,
 * and so is the userinfo of any URL anywhere in a line (an error's message,
 * stack or `input` included), since a driver or library may echo a URL we
 * never logged ourselves.
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
        paths: ['password', '*.password', 'authorization', '*.authorization', ...['databaseUrl', 'natsUrl', 'smtpUrl'].flatMap((k) => [k, `*.${k}`])],
        censor: REDACTED,
      },
      // Last, on the finished line: nothing logged by any path escapes it.
      hooks: { streamWrite: redactUrlCredentials },
    },
    // Synchronous writes: nothing is buffered at exit. With the default
    // buffered destination, a process whose stdout reader died (the
    // launcher SIGKILLed) retried the EPIPE flush at exit forever and never
    // ended; a synchronous write fails once and the process exits.
    destination ?? pino.destination({ dest: 1, sync: true }),
  );
}
