import { setTimeout as sleep } from 'node:timers/promises';
import { credentials, Metadata, status, type ServiceError } from '@grpc/grpc-js';
import {
  fijarCredencial,
  USUARIO_BIN_METADATA_KEY,
  USUARIO_METADATA_KEY,
  UnavailableError,
  type CallContext,
} from '@inventario/platform';
import { ExistenciaServiceClient, MOTIVO_MOVIMIENTO_NAMES } from '@inventario/proto';

/** Well inside the BFF's deadline for the write that makes the call. */
const DEADLINE_MS = 3000;

/**
 * The waits before a create's second and third attempt at its initial stock (docs/decisions.md, "a create whose
 * initial stock was not recorded"): bodega-svc records it at most once, so an attempt whose commit landed unseen makes
 * the next one answer that recording.
 */
const REINTENTOS_MS = [50, 150];

/** What an attempt ends with when bodega-svc was not reached or its answer was lost; anything else is its answer. */
const TRANSITORIOS: readonly number[] = [status.UNAVAILABLE, status.DEADLINE_EXCEEDED];

/** Left of the create's own deadline for its answer after the last attempt. */
const RESERVA_MS = 100;

/**
 * bodega-svc's ledger, where every unit lives (docs/contract.md §10.6): a
 * product's `cantidadEnStock` at creation is recorded there as its initial
 * stock, and a PUT of it as a count. A product's initial stock (or migration)
 * is recorded once by bodega-svc's own table, so that call carries no key:
 * concurrent repeats (a create's keyed replays) wait for the first and get
 * its operation, where one key would refuse them as in use. A count is keyed
 * by the product's new version, so a retry records it once.
 */
export interface LibroDeStock {
  /**
   * ENTRADA (STOCK_INICIAL) of the units the product was created with: in its warehouse as far as they fit, the rest
   * unlocated.
   * Answers the product's ledger total right after, when bodega-svc knows it exactly (these were its first units).
   * Up to three attempts, the later ones only after UNAVAILABLE or DEADLINE_EXCEEDED and while the caller's deadline
   * leaves time: the last failure is the one thrown.
   */
  registrarStockInicial(
    producto: { id: number; bodegaId: number | null; cantidadEnStock: number },
    caller: CallContext,
  ): Promise<number | undefined>;
  /**
   * ENTRADA (MIGRACION) of what the product's old column says and its levels do not explain; nothing when they explain
   * it all.
   */
  migrar(
    producto: { id: number; bodegaId: number | null; cantidadEnStock: number },
    caller: CallContext,
  ): Promise<void>;
  /** A count of the product: its ledger total becomes `cantidad`. Answers the total. */
  contar(
    producto: { id: number; bodegaId: number | null; version: number },
    cantidad: number,
    caller: CallContext,
  ): Promise<number>;
  close(): void;
}

/** The caller's name and trace, and its signed principal forwarded (or this service's own token). */
function metadataOf(caller: CallContext, serviceToken: string | undefined): Metadata {
  const metadata = fijarCredencial(new Metadata(), caller, serviceToken);
  if (/^[\x20-\x7e]*$/.test(caller.usuario)) metadata.set(USUARIO_METADATA_KEY, caller.usuario);
  else metadata.set(USUARIO_BIN_METADATA_KEY, Buffer.from(caller.usuario, 'utf8'));
  if (caller.traceparent) metadata.set('traceparent', caller.traceparent);
  return metadata;
}

export function createLibroDeStock(address: string, serviceToken?: string): LibroDeStock {
  const client = new ExistenciaServiceClient(address, credentials.createInsecure(), {
    'grpc.max_reconnect_backoff_ms': 5000,
    'grpc.service_config': JSON.stringify({ loadBalancingConfig: [{ round_robin: {} }] }),
  });
  const fallo = (what: string, err: ServiceError) =>
    new UnavailableError(`bodega-svc no registró ${what}: ${err.details || err.message}`, { cause: err });

  function inicial(
    producto: { id: number; bodegaId: number | null; cantidadEnStock: number },
    caller: CallContext,
    motivo: 'STOCK_INICIAL' | 'MIGRACION',
    deadline = Date.now() + DEADLINE_MS,
  ) {
    return new Promise<number | undefined>((resolve, reject) => {
      client.registrarStockInicial(
        {
          productoId: producto.id,
          bodegaId: producto.bodegaId ?? undefined,
          cantidad: producto.cantidadEnStock,
          motivo: MOTIVO_MOVIMIENTO_NAMES.value(motivo),
        },
        metadataOf(caller, serviceToken),
        { deadline },
        (err, res) =>
          err
            ? reject(
                fallo(`el stock ${motivo === 'MIGRACION' ? 'migrado' : 'inicial'} del producto ${producto.id}`, err),
              )
            : resolve(res.total === undefined ? undefined : Number(res.total)),
      );
    });
  }

  async function stockInicial(
    producto: { id: number; bodegaId: number | null; cantidadEnStock: number },
    caller: CallContext,
  ): Promise<number | undefined> {
    const hasta = (caller.deadline ?? Infinity) - RESERVA_MS;
    for (let intento = 0; ; intento++) {
      try {
        return await inicial(producto, caller, 'STOCK_INICIAL', Math.min(Date.now() + DEADLINE_MS, hasta));
      } catch (err) {
        const espera = REINTENTOS_MS[intento];
        const code = (err as { cause?: Partial<ServiceError> }).cause?.code;
        const transitorio = code !== undefined && TRANSITORIOS.includes(code);
        const reintentable = transitorio && espera !== undefined && Date.now() + espera < hasta;
        if (!reintentable || caller.signal?.aborted) throw err;
        await sleep(espera);
      }
    }
  }

  return {
    registrarStockInicial: stockInicial,
    migrar: async (producto, caller) => void (await inicial(producto, caller, 'MIGRACION')),
    contar(producto, cantidad, caller) {
      return new Promise((resolve, reject) => {
        client.contarProducto(
          {
            productoId: producto.id,
            bodegaId: producto.bodegaId ?? undefined,
            cantidad,
            requestId: `producto-${producto.id}-v${producto.version}-conteo`,
          },
          metadataOf(caller, serviceToken),
          { deadline: Date.now() + DEADLINE_MS },
          (err, res) =>
            err ? reject(fallo(`el conteo del producto ${producto.id}`, err)) : resolve(Number(res.total)),
        );
      });
    },
    close: () => client.close(),
  };
}
