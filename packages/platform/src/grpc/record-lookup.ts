import { credentials, status, type CallOptions, type ChannelCredentials, type ChannelOptions, type Client, type ServiceError } from '@grpc/grpc-js';
import { UnavailableError } from '../errors';

/**
 * A deletion event is acted on only once the record's owner confirms it is
 * gone, so a forged or misrouted event cannot discard what belongs to a live
 * record (docs/contract.md §7.6).
 */
export interface RecordLookup {
  /** True while the owner has record `id`, false once it answers NOT_FOUND; UnavailableError when it cannot tell. */
  exists(id: number): Promise<boolean>;
  close(): void;
}

export type GeneratedClient<C extends Client> = new (address: string, credentials: ChannelCredentials, options?: Partial<ChannelOptions>) => C;

export interface RecordLookupOptions<C extends Client> {
  address: string;
  client: GeneratedClient<C>;
  get(client: C, id: number, options: CallOptions, done: (err: ServiceError | null) => void): void;
  /** For error messages, e.g. `bodega-svc` and `warehouse`. */
  owner: string;
  record: string;
}

/** Each question waits at most this long: the consumer naks and asks again later. */
const DEADLINE_MS = 5000;

export function createRecordLookup<C extends Client>(options: RecordLookupOptions<C>): RecordLookup {
  const client = new options.client(options.address, credentials.createInsecure(), {
    // Same reasons as the BFF's channels: come back quickly after the owner restarts, every replica in rotation.
    'grpc.max_reconnect_backoff_ms': 5000,
    'grpc.service_config': JSON.stringify({ loadBalancingConfig: [{ round_robin: {} }] }),
  });
  return {
    exists: (id) =>
      new Promise<boolean>((resolve, reject) => {
        options.get(client, id, { deadline: Date.now() + DEADLINE_MS }, (err) => {
          // Only NOT_FOUND confirms a deletion.
          if (!err) resolve(true);
          else if (err.code === status.NOT_FOUND) resolve(false);
          else
            reject(
              new UnavailableError(`${options.owner} could not say whether ${options.record} ${id} exists: ${status[err.code] ?? err.code}`, { cause: err }),
            );
        });
      }),
    close: () => client.close(),
  };
}
