import type { Request, RequestHandler } from 'express';
import { rateLimit, type RateLimitInfo } from 'express-rate-limit';
import type { Logger } from '@inventario/platform';
import { TooManyRequestsError } from './http-errors';

const WINDOW_MS = 60_000;

/** Per client IP and replica (docs/contract.md §3.4); before authentication, so it limits guessing too. */
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
      next(
        TooManyRequestsError.until((req as Request & { rateLimit?: RateLimitInfo }).rateLimit?.resetTime, WINDOW_MS),
      );
    },
  });
}
