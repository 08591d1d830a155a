/**
 * Many independent clients of one service's ExistenciaService, each on its
 * own connection (grpc-js would otherwise share one subchannel among
 * channels to the same address), for tests of what concurrent callers see.
 */
import { credentials, Metadata, type ServiceError } from '@grpc/grpc-js';
import { errorReasonOf, grpcCodeName } from '@inventario/platform';
import { ExistenciaServiceClient, ExistenciaServiceService } from '@inventario/proto';
import type { StockRpc } from './stock-rpc';

export interface StockClients {
  clients: StockRpc[];
  close(): void;
}

export function stockClients(address: string, n: number): StockClients {
  const raw = Array.from(
    { length: n },
    () => new ExistenciaServiceClient(address, credentials.createInsecure(), { 'grpc.use_local_subchannel_pool': 1 }),
  );
  const clients = raw.map(
    (client) =>
      Object.fromEntries(
        Object.keys(ExistenciaServiceService).map((name) => {
          const method = (
            client as unknown as Record<
              string,
              (req: unknown, md: Metadata, cb: (err: ServiceError | null, res: unknown) => void) => unknown
            >
          )[name]!.bind(client);
          return [
            name,
            (req: unknown, md = new Metadata()) =>
              new Promise((resolve, reject) => method(req, md, (err, res) => (err ? reject(err) : resolve(res)))),
          ];
        }),
      ) as StockRpc,
  );
  return { clients, close: () => raw.forEach((c) => c.close()) };
}

/** What one call got: its answer, or its status name and `inventario-error-reason`. */
export type Answer<R> = { ok: true; res: R } | { ok: false; code: string; reason: string | undefined; details: string };

export async function answerOf<R>(call: Promise<R>): Promise<Answer<R>> {
  try {
    return { ok: true, res: await call };
  } catch (err) {
    const e = err as ServiceError;
    if (typeof e.code !== 'number') throw err;
    return { ok: false, code: grpcCodeName(e.code), reason: errorReasonOf(e), details: e.details };
  }
}

/** How many answers of each kind: `ok`, or `CODE REASON`. */
export function tally(answers: Answer<unknown>[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const a of answers) {
    const label = a.ok ? 'ok' : `${a.code} ${a.reason ?? ''}`.trim();
    out[label] = (out[label] ?? 0) + 1;
  }
  return out;
}
