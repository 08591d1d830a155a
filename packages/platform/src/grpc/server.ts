import { readFileSync } from 'node:fs';
import { Server, ServerCredentials, type ServiceDefinition, type UntypedServiceImplementation } from '@grpc/grpc-js';
import { loadFileDescriptorSetFromBuffer } from '@grpc/proto-loader';
import { ReflectionService } from '@grpc/reflection';
import { HealthImplementation } from 'grpc-health-check';
import type { Logger } from '../logger';
import { fileDescriptorProtosOf } from './descriptor-set';

export interface GrpcServiceBinding {
  /** Fully qualified: the health service key. */
  name: string;
  definition: ServiceDefinition;
  implementation: UntypedServiceImplementation;
}

export interface GrpcServerOptions {
  host?: string;
  port: number;
  services: GrpcServiceBinding[];
  /** `buf build` output, served by reflection. */
  descriptorSetPath: string;
  logger: Logger;
}

export interface StartedGrpcServer {
  server: Server;
  port: number;
  setServing(serving: boolean): void;
  /** In-flight calls get up to `graceMs`, then are cancelled. */
  shutdown(graceMs: number): Promise<void>;
}

/** Health starts NOT_SERVING until the caller says otherwise. */
export async function startGrpcServer(options: GrpcServerOptions): Promise<StartedGrpcServer> {
  const server = new Server({
    // The BFF pings idle connections every 3 s; grpc-js servers (1.14) accept pings at any rate and read this on
    // clients only.
    'grpc.keepalive_permit_without_calls': 1,
    'grpc.max_receive_message_length': 4 * 1024 * 1024,
    // Channelz bookkeeping costs CPU on every call and nothing here reads it (bench/RESULTS.md).
    'grpc.enable_channelz': 0,
    // Clients re-resolve DNS only when a connection ends: aging connections out lets round_robin find new replicas.
    'grpc.max_connection_age_ms': 5 * 60_000,
    'grpc.max_connection_age_grace_ms': 30_000,
  });
  for (const s of options.services) server.addService(s.definition, s.implementation);

  const names = ['', ...options.services.map((s) => s.name)];
  const health = new HealthImplementation(Object.fromEntries(names.map((n) => [n, 'NOT_SERVING'])));
  health.addToServer(server);

  // Reflection reads only `fileDescriptorProtos`: give it the files as compiled (descriptor-set.ts).
  const descriptorSet = readFileSync(options.descriptorSetPath);
  const descriptors = loadFileDescriptorSetFromBuffer(descriptorSet);
  const files = fileDescriptorProtosOf(descriptorSet);
  for (const definition of Object.values(descriptors)) {
    if ('fileDescriptorProtos' in definition) definition.fileDescriptorProtos = files;
  }
  // The set holds all of inventario.v1; list only what this server binds.
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
