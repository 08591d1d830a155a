import type { Request, RequestHandler } from 'express';
import { rateLimit, type RateLimitInfo } from 'express-rate-limit';
import type { Logger } from '@inventario/platform';
import { TooManyRequestsError } from './http-errors';

const WINDOW_MS = 60_000;

/**
 * At most `perMinute` requests per client IP and minute (express-rate-limit,
 * in-memory: per replica). Mounted before authentication, so guessing
 * passwords is limited too. Over the limit: TooManyRequestsError (429 +
 * Retry-After) through the error middleware. The client IP honours the
 * app's `trust proxy` hops (TRUST_PROXY_HOPS, 1 behind Envoy).
 */
export function createRateLimit(perMinute: number, logger: Logger): RequestHandler {
  return rateLimit({
    windowMs: WINDOW_MS,
    limit: perMinute,
    standardHeaders: 'draft-8',
    legacyHeaders: false,
    // The library's own warnings go to our logger, not the console.
    logger: {
      warn: (err: unknown, message?: string) => logger.warn({ err }, message ?? 'express-rate-limit'),
      error: (err: unknown, message?: string) => logger.error({ err }, message ?? 'express-rate-limit'),
    },
    handler: (req, _res, next) => {
      // express-rate-limit leaves its count on the request (requestPropertyName).
      next(TooManyRequestsError.until((req as Request & { rateLimit?: RateLimitInfo }).rateLimit?.resetTime, WINDOW_MS));
    },
  });
}
