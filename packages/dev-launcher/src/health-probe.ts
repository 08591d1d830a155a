import { credentials, makeGenericClientConstructor, type ServiceError } from '@grpc/grpc-js';
import { service as healthService } from 'grpc-health-check';
import { setTimeout as sleep } from 'node:timers/promises';

interface HealthClient {
  check(
    request: { service: string },
    options: { deadline: Date },
    callback: (err: ServiceError | null, response?: { status: string | number }) => void,
  ): void;
  close(): void;
}

const HealthClientCtor = makeGenericClientConstructor(healthService, 'Health');

/** Waits until grpc.health.v1 at `address` answers SERVING, or `signal` aborts. */
export async function waitUntilServing(address: string, signal: AbortSignal): Promise<void> {
  const client = new HealthClientCtor(address, credentials.createInsecure()) as unknown as HealthClient;
  try {
    while (!signal.aborted) {
      const status = await new Promise<string | number | undefined>((resolve) => {
        client.check({ service: '' }, { deadline: new Date(Date.now() + 1000) }, (err, res) =>
          resolve(err ? undefined : res?.status),
        );
      });
      if (status === 'SERVING' || status === 1) return;
      await sleep(200, undefined, { signal }).catch(() => undefined);
    }
    throw new Error(`gave up waiting for ${address}`);
  } finally {
    client.close();
  }
}
