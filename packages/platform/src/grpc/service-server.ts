import { status, type handleUnaryCall, type UntypedServiceImplementation } from '@grpc/grpc-js';
import { DomainError } from '../errors';
import type { Registry } from 'prom-client';
import type { Logger } from '../logger';
import { createGrpcServerMetrics, instrumentGrpcService } from '../metrics/grpc-metrics';
import { fijarPrincipal } from './handlers';
import type { AutenticacionDeServicio } from './principal-de-llamada';
import { startGrpcServer, type GrpcServiceBinding, type StartedGrpcServer } from './server';
import { domainErrorToStatus } from './status';

export interface ServiceGrpcServerOptions {
  host: string;
  port: number;
  services: GrpcServiceBinding[];
  /** Binary FileDescriptorSet served by reflection. */
  descriptorSetPath: string;
  /** Where the grpc_server_* series of each method go. */
  registry: Registry;
  logger: Logger;
  /**
   * Who may call (docs/contract.md §12.9): every method of `services` runs only once its caller's principal is
   * verified (health and reflection stay open for probes). Absent: no check (identidad-svc checks its own).
   */
  autenticacion?: AutenticacionDeServicio;
}

/** A service's gRPC server, answering UNAVAILABLE until `acceptCalls()`. */
export interface ServiceGrpcServer extends StartedGrpcServer {
  /** From now on calls reach the handlers (call it once migrations are applied). */
  acceptCalls(): void;
}

/**
 * Starts a service's gRPC server (grpc.health.v1 NOT_SERVING, reflection)
 * with each call counted and timed. The port opens before migrations run,
 * so probes get an answer rather than a refused connection; until
 * `acceptCalls()` every call gets UNAVAILABLE (retryable) instead of
 * reaching a table that is not there yet.
 */
export async function startServiceGrpcServer(options: ServiceGrpcServerOptions): Promise<ServiceGrpcServer> {
  const metrics = createGrpcServerMetrics(
    options.registry,
    options.services.map((s) => s.definition),
  );
  let accepting = false;
  const server = await startGrpcServer({
    host: options.host,
    port: options.port,
    services: options.services.map((s) => ({
      ...s,
      implementation: instrumentGrpcService(
        s.definition,
        unavailableUntil(
          () => accepting,
          options.autenticacion ? autenticado(options.autenticacion, s.implementation) : s.implementation,
        ),
        metrics,
      ),
    })),
    descriptorSetPath: options.descriptorSetPath,
    logger: options.logger,
  });
  return {
    ...server,
    acceptCalls() {
      accepting = true;
    },
  };
}

/**
 * Answers UNAVAILABLE instead of calling a handler until `ready()`. Every
 * inventario.v1 method is unary.
 */
function unavailableUntil(
  ready: () => boolean,
  implementation: UntypedServiceImplementation,
): UntypedServiceImplementation {
  return Object.fromEntries(
    Object.entries(implementation).map(([method, handler]) => {
      const unary = handler as handleUnaryCall<unknown, unknown>;
      const gated: handleUnaryCall<unknown, unknown> = (call, callback) => {
        if (ready()) return unary(call, callback);
        callback({ code: status.UNAVAILABLE, details: 'starting: database migrations not applied yet' });
      };
      return [method, gated];
    }),
  );
}

/**
 * Verifies each call's principal before its handler runs and hands it to the
 * handler's CallContext; a refusal (UNAUTHENTICATED, or UNAVAILABLE when
 * identidad-svc cannot be asked about a token) never reaches the handler.
 */
function autenticado(
  autenticacion: AutenticacionDeServicio,
  implementation: UntypedServiceImplementation,
): UntypedServiceImplementation {
  return Object.fromEntries(
    Object.entries(implementation).map(([method, handler]) => {
      const unary = handler as handleUnaryCall<unknown, unknown>;
      const checked: handleUnaryCall<unknown, unknown> = (call, callback) => {
        autenticacion.autenticar(call.metadata, call.getPeer()).then(
          (verificado) => {
            if (verificado) fijarPrincipal(call, verificado);
            unary(call, callback);
          },
          (err: unknown) =>
            callback(
              err instanceof DomainError
                ? domainErrorToStatus(err)
                : { code: status.INTERNAL, details: 'internal error verifying the principal' },
            ),
        );
      };
      return [method, checked];
    }),
  );
}
