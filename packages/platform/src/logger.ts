import pino from 'pino';

export type Logger = pino.Logger;

/**
 * JSON logs on stdout, one object per line, `service` on every line.
 * Credentials never reach a log: known secret-bearing keys are redacted.
 */
export function createLogger(service: string, level: string): Logger {
  return pino(
    {
      level,
      base: { service },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: {
        paths: ['password', '*.password', 'authorization', '*.authorization', 'databaseUrl', '*.databaseUrl'],
        censor: '[redacted]',
      },
    },
    // Synchronous writes: nothing is buffered at exit. With the default
    // buffered destination, a process whose stdout reader died (the
    // launcher SIGKILLed) retried the EPIPE flush at exit forever and never
    // ended; a synchronous write fails once and the process exits.
    pino.destination({ dest: 1, sync: true }),
  );
}
