import express from 'express';
import type { HealthChecker } from '../downstream/health-checker';
import { sendJson } from './rest-json';

export interface HealthRouterDeps {
  health: HealthChecker;
  /** False from the first step of shutdown, so traffic moves away. */
  accepting: () => boolean;
}

/**
 * The probes (docs/contract.md §2.8). Liveness and readiness ignore the downstream services: an
 * outage there must not restart the BFF, and the BFF degrades per route, so taking every replica
 * out of rotation would turn a partial outage into a total one.
 */
export function createHealthRouter({ health, accepting }: HealthRouterDeps): express.Router {
  const router = express.Router();
  const noStore: express.RequestHandler = (_req, res, next) => {
    res.set('Cache-Control', 'no-store');
    next();
  };
  router.use(noStore);

  router.get('/', async (_req, res) => {
    const report = await health.check();
    sendJson(res, report.status === 'UP' ? 200 : 503, report);
  });

  router.get('/liveness', (_req, res) => {
    sendJson(res, 200, { status: 'UP' });
  });

  router.get('/readiness', (_req, res) => {
    sendJson(res, accepting() ? 200 : 503, { status: accepting() ? 'UP' : 'DOWN' });
  });

  return router;
}
