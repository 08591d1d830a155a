import {
  credentials,
  status,
  type CallOptions,
  type ChannelCredentials,
  type ChannelOptions,
  type Client,
  type ServiceError,
} from '@grpc/grpc-js';
import { DEPENDENCIA_NO_DISPONIBLE, UnavailableError } from '../errors';

/**
 * A deletion event is acted on only once the record's owner confirms it
 * deleted the record, so a forged or misrouted event can neither discard what
 * belongs to a live record nor mark as deleted an id not created yet
 * (docs/contract.md §7.6).
 */
export interface RecordLookup {
  /**
   * True once the owner answers that it deleted record `id` (its
   * Get*Eliminad* call answers OK); false when it answers NOT_FOUND (the
   * record is live, or was never created); UnavailableError when it cannot
   * tell (unreachable, or an older owner without the call: UNIMPLEMENTED,
   * or no answer by `deadline`, epoch ms, when given and sooner than the
   * lookup's own 5 s: a request's question ends inside its request).
   */
  wasDeleted(id: number, deadline?: number): Promise<boolean>;
  /**
   * True when the owner has record `id` now (its Get* call answers OK); false
   * when it answers NOT_FOUND (never created, or deleted); UnavailableError
   * when it cannot tell. Only for a lookup built with `confirmLive`.
   */
  isLive(id: number): Promise<boolean>;
  close(): void;
}

export type GeneratedClient<C extends Client> = new (
  address: string,
  credentials: ChannelCredentials,
  options?: Partial<ChannelOptions>,
) => C;

/** One call to the record's owner about record `id`; `done` gets its failure, or null when it answered OK. */
export type OwnerCall<C extends Client> = (
  client: C,
  id: number,
  options: CallOptions,
  done: (err: ServiceError | null) => void,
) => void;

export interface RecordLookupOptions<C extends Client> {
  address: string;
  client: GeneratedClient<C>;
  /** Calls the owner's deletion confirmation (GetBodegaEliminada, GetProductoEliminado) for `id`. */
  confirm: OwnerCall<C>;
  /** Calls the owner's read of the record (GetProducto) for `id`, for isLive. */
  confirmLive?: OwnerCall<C>;
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
  /** OK is yes, NOT_FOUND is no, anything else says nothing (UnavailableError). */
  const ask = (id: number, what: string, call: OwnerCall<C>, deadline = Infinity) =>
    new Promise<boolean>((resolve, reject) => {
      call(client, id, { deadline: Math.min(Date.now() + DEADLINE_MS, deadline) }, (err) => {
        if (!err) resolve(true);
        else if (err.code === status.NOT_FOUND) resolve(false);
        else
          reject(
            // The owner's outage, not the asking service's (a breaker in front of the latter does not count it).
            new UnavailableError(
              `${options.owner} could not say whether ${options.record} ${id} ${what}: ${status[err.code] ?? err.code}`,
              {
                cause: err,
                reason: DEPENDENCIA_NO_DISPONIBLE,
                datos: { servicio: options.owner },
              },
            ),
          );
      });
    });
  const { confirmLive } = options;
  return {
    wasDeleted: (id, deadline) => ask(id, 'was deleted', options.confirm, deadline),
    isLive: (id) => {
      if (!confirmLive)
        return Promise.reject(
          new Error(`this lookup of ${options.owner} cannot tell whether a ${options.record} exists`),
        );
      return ask(id, 'exists', confirmLive);
    },
    close: () => client.close(),
  };
}
