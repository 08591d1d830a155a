import { Metadata, status, type Client, type ServiceError } from '@grpc/grpc-js';
import { service as healthService } from 'grpc-health-check';
import type { Breaker, BreakerState } from './breaker';

/** A downstream as /actuator/health names it. */
export interface HealthTarget {
  /** Component name, e.g. `productoSvc`. */
  name: string;
  /** A client on the service's channel (the same channel the calls use). */
  client: Client;
  /** Fully qualified gRPC service name whose grpc.health.v1 status counts. */
  service: string;
  breaker: Breaker;
}

export interface ComponentHealth {
  status: 'UP' | 'DOWN';
  details: {
    /** The grpc.health.v1 answer (SERVING, NOT_SERVING, ...) or the gRPC code of a failed check. */
    grpc: string;
    breaker: BreakerState;
  };
}

export interface HealthReport {
  status: 'UP' | 'DOWN';
  components: Record<string, ComponentHealth>;
}

export interface HealthChecker {
  /** Asks every downstream now; concurrent callers share one round of checks. */
  check(): Promise<HealthReport>;
}

const checkMethod = healthService.Check;

/** One grpc.health.v1 Check; never rejects: a failed check is reported by its code name. */
function checkOne(target: HealthTarget, timeoutMs: number): Promise<string> {
  if (!checkMethod) return Promise.resolve('UNIMPLEMENTED');
  return new Promise((resolve) => {
    target.client.makeUnaryRequest(
      checkMethod.path,
      checkMethod.requestSerialize,
      checkMethod.responseDeserialize,
      { service: target.service },
      new Metadata(),
      { deadline: Date.now() + timeoutMs },
      (err: ServiceError | null, res?: { status?: string }) => {
        if (err) resolve(status[err.code] ?? `CODE_${err.code}`);
        else resolve(res?.status ?? 'UNKNOWN');
      },
    );
  });
}

/**
 * Health of the downstream services from their grpc.health.v1 status (not
 * through the breakers: health must see a service come back even while its
 * breaker is still open). A component is UP only when it answers SERVING;
 * the whole is UP only when every component is. Details name statuses only,
 * never addresses or error texts (the endpoint is public).
 */
export function createHealthChecker(targets: HealthTarget[], timeoutMs: number): HealthChecker {
  let inFlight: Promise<HealthReport> | undefined;

  async function run(): Promise<HealthReport> {
    const answers = await Promise.all(targets.map((target) => checkOne(target, timeoutMs)));
    const components: Record<string, ComponentHealth> = {};
    targets.forEach((target, i) => {
      const grpc = answers[i] ?? 'UNKNOWN';
      components[target.name] = {
        status: grpc === 'SERVING' ? 'UP' : 'DOWN',
        details: { grpc, breaker: target.breaker.state() },
      };
    });
    const up = Object.values(components).every((c) => c.status === 'UP');
    return { status: up ? 'UP' : 'DOWN', components };
  }

  return {
    check() {
      // A burst of probes (the endpoint needs no credentials) costs one round downstream.
      inFlight ??= run().finally(() => {
        inFlight = undefined;
      });
      return inFlight;
    },
  };
}
