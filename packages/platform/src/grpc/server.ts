import { readFileSync } from 'node:fs';
import { Server, ServerCredentials, type ServiceDefinition, type UntypedServiceImplementation } from '@grpc/grpc-js';
import { loadFileDescriptorSetFromBuffer } from '@grpc/proto-loader';
import { ReflectionService } from '@grpc/reflection';
import { HealthImplementation } from 'grpc-health-check';
import type { Logger } from '../logger';
import { fileDescriptorProtosOf } from './descriptor-set';

export interface GrpcServiceBinding {
  /** Fully qualified name, e.g. `inventario.v1.ProductoService`: the health service key. */
  name: string;
  definition: ServiceDefinition;
  implementation: UntypedServiceImplementation;
}

export interface GrpcServerOptions {
  host?: string;
  port: number;
  services: GrpcServiceBinding[];
  /** Binary FileDescriptorSet of our protos (built by `buf build`), served by reflection. */
  descriptorSetPath: string;
  logger: Logger;
}

export interface StartedGrpcServer {
  server: Server;
  /** The bound port (useful with port 0 in tests). */
  port: number;
  /** Sets grpc.health.v1 for the whole server ("") and each service. */
  setServing(serving: boolean): void;
  /** Stops accepting calls, lets in-flight calls finish up to `graceMs`, then cancels them. */
  shutdown(graceMs: number): Promise<void>;
}

/**
 * A grpc-js server with our services, grpc.health.v1 (starts NOT_SERVING
 * until the caller says otherwise) and server reflection (v1 and v1alpha).
 */
export async function startGrpcServer(options: GrpcServerOptions): Promise<StartedGrpcServer> {
  const server = new Server({
    // The BFF pings every connection every 3 s, idle or not, to find a dead
    // replica (services/bff downstream.ts). A grpc-js server accepts client
    // pings at any rate: unlike C-core it has no min_ping_interval and sends
    // no "too_many_pings" GOAWAY (grpc-js 1.14), so they are permitted as
    // they are; grpc-js reads this option on clients only.
    'grpc.keepalive_permit_without_calls': 1,
    'grpc.max_receive_message_length': 4 * 1024 * 1024,
    // Channelz bookkeeping costs CPU on every call and nothing here reads it (bench/RESULTS.md).
    'grpc.enable_channelz': 0,
    // Clients re-resolve DNS only when a connection ends: closing each one
    // after 5 minutes (GOAWAY; calls in flight get 30 s to finish, far above
    // any deadline the BFF sets) lets a round_robin client find replicas
    // added since, e.g. by an autoscaler.
    'grpc.max_connection_age_ms': 5 * 60_000,
    'grpc.max_connection_age_grace_ms': 30_000,
  });
  for (const s of options.services) server.addService(s.definition, s.implementation);

  const names = ['', ...options.services.map((s) => s.name)];
  const health = new HealthImplementation(Object.fromEntries(names.map((n) => [n, 'NOT_SERVING'])));
  health.addToServer(server);

  // Reflection reads only the `fileDescriptorProtos` of each definition; give
  // it our files exactly as compiled (see descriptor-set.ts for why).
  const descriptorSet = readFileSync(options.descriptorSetPath);
  const descriptors = loadFileDescriptorSetFromBuffer(descriptorSet);
  const files = fileDescriptorProtosOf(descriptorSet);
  for (const definition of Object.values(descriptors)) {
    if ('fileDescriptorProtos' in definition) definition.fileDescriptorProtos = files;
  }
  // List only the services this server binds (the set holds all of inventario.v1).
  const listed = [...options.services.map((s) => s.name), 'grpc.health.v1.Health'];
  new ReflectionService(descriptors, { services: listed }).addToServer(server);

  const address = `${options.host ?? '0.0.0.0'}:${options.port}`;
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync(address, ServerCredentials.createInsecure(), (err, bound) => (err ? reject(err) : resolve(bound)));
  });
  options.logger.info({ port }, 'grpc server listening');

  return {
    server,
    port,
    setServing(serving) {
      for (const n of names) health.setStatus(n, serving ? 'SERVING' : 'NOT_SERVING');
    },
    shutdown(graceMs) {
      return new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          server.forceShutdown();
          resolve();
        }, graceMs);
        server.tryShutdown(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    },
  };
}
