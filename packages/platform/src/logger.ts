import pino from 'pino';

export type Logger = pino.Logger;

/**
 * JSON logs on stdout, one object per line, `service` on every line.
 * Credentials never reach a log: known secret-bearing keys are redacted.
 */
export function createLogger(service: string, level: string): Logger {
  return pino({
    level,
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: {
      paths: ['password', '*.password', 'authorization', '*.authorization', 'databaseUrl', '*.databaseUrl'],
      censor: '[redacted]',
    },
  });
}
