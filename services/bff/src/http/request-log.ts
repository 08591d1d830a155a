import type { RequestHandler } from 'express';
import type { Logger } from '@inventario/platform';
import { authenticatedCaller } from './auth';

/** Probes are logged at debug, or they would drown the rest. */
const PROBE_PREFIX = '/actuator/health';

/** No query string (it may carry search text) and never a header (Authorization stays out of the logs). */
export function createRequestLog(logger: Logger): RequestHandler {
  // The line is the scalar fields below, none of them a redacted path (password, authorization, the config URLs), so
  // it skips pino's redaction, which cost about three times the rest of the line on every request (issue 26). The
  // logger's other settings are inherited: the URL-userinfo hook still cleans the finished line.
  const requestLogger = logger.child({}, { redact: [] });
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    const path = req.originalUrl.split('?', 1)[0] ?? '';
    res.once('close', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const usuario = authenticatedCaller(res)?.usuario;
      const line = {
        method: req.method,
        path,
        status: res.statusCode,
        ms: Math.round(ms * 10) / 10,
        usuario,
        aborted: !res.writableFinished || undefined,
      };
      if (path.startsWith(PROBE_PREFIX)) requestLogger.debug(line, 'request');
      else requestLogger.info(line, 'request');
    });
    next();
  };
}
