import express from 'express';
import type { HealthChecker } from '../downstream/health-checker';
import { sendJson } from './rest-json';

export interface HealthRouterDeps {
  health: HealthChecker;
  /** False from the first step of shutdown: readiness answers DOWN so traffic moves away. */
  accepting: () => boolean;
}

/**
 * The probes, public (no auth, no rate limit), in Spring Boot Actuator's
 * shape: `/actuator/health` with a component per downstream (its
 * grpc.health.v1 status), 503 + DOWN when any is down; `/liveness` is UP
 * while the process can answer at all (a downstream outage must not get the
 * BFF restarted); `/readiness` is UP while the BFF accepts requests and
 * turns DOWN when shutdown starts. Readiness deliberately ignores the
 * downstream services: the BFF degrades per route (a producto-svc outage
 * opens only its breaker, warehouse routes keep working), and taking every
 * replica out of rotation would turn a partial outage into a total one.
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
