import { Client, credentials, Metadata, type ServiceError } from '@grpc/grpc-js';
import { service as healthService } from 'grpc-health-check';

/** A grpc.health.v1 client, as Kubernetes' gRPC probe or grpc-health-probe would call it. */
export interface HealthClient {
  /** The status of `service` ('' = the whole server), e.g. 'SERVING'. */
  check(service: string): Promise<string>;
  close(): void;
}

export function createHealthClient(port: number): HealthClient {
  const client = new Client(`127.0.0.1:${port}`, credentials.createInsecure());
  const check = healthService.Check;
  if (!check) throw new Error('grpc-health-check exposes no Check method');
  return {
    check: (service) =>
      new Promise((resolve, reject) => {
        client.makeUnaryRequest(
          check.path,
          check.requestSerialize,
          check.responseDeserialize,
          { service },
          new Metadata(),
          { deadline: Date.now() + 5000 },
          (err: ServiceError | null, res?: { status?: string }) =>
            err ? reject(err) : resolve(res?.status ?? 'UNKNOWN'),
        );
      }),
    close: () => client.close(),
  };
}
