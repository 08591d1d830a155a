import * as path from 'node:path';
import type { LauncherRecord } from '@inventario/platform';

/**
 * Which system `npm run seed` loads the sample data into (docs/contract.md §8.6): only one it was
 * aimed at, never whatever happens to answer on the default ports (another engineer's stack, say).
 *
 * - `PRODUCTO_SVC_ADDR` and `BODEGA_SVC_ADDR` (the chart's seed Job, any system reached by address):
 *   those two, both required.
 * - `PRODUCTO_GRPC_PORT` / `BODEGA_GRPC_PORT`, the variables `npm start` was given: the launcher's
 *   services on 127.0.0.1 at those ports, each absent one at its default, as `npm start` reads them.
 * - Neither: the system the `npm start` of this checkout is running (its record in LAUNCHER_DATA_DIR).
 *   Without one, nothing was aimed at, and the seed refuses, saying how to aim it.
 */
export type SeedTarget = { productoSvcAddr: string; bodegaSvcAddr: string; origen: string } | { error: string };

/**
 * The repository's .dev-data/, where `npm start` keeps its record by default (this file runs from
 * services/bff/dist/seed).
 */
export const DEFAULT_LAUNCHER_DATA_DIR = path.resolve(__dirname, '..', '..', '..', '..', '.dev-data');

const PORT = /^[1-9]\d{0,4}$/;

export function seedTarget(env: NodeJS.ProcessEnv, record: LauncherRecord | undefined): SeedTarget {
  const set = (name: string) => env[name] !== undefined && env[name] !== '';
  const byAddr = set('PRODUCTO_SVC_ADDR') || set('BODEGA_SVC_ADDR');
  const byPort = set('PRODUCTO_GRPC_PORT') || set('BODEGA_GRPC_PORT');
  if (byAddr && byPort) {
    return {
      error:
        'nombre el sistema una sola vez: o PRODUCTO_SVC_ADDR y BODEGA_SVC_ADDR, o PRODUCTO_GRPC_PORT / ' +
        'BODEGA_GRPC_PORT (los puertos que recibió npm start)',
    };
  }
  if (byAddr) {
    if (!set('PRODUCTO_SVC_ADDR') || !set('BODEGA_SVC_ADDR')) {
      return {
        error:
          'PRODUCTO_SVC_ADDR y BODEGA_SVC_ADDR nombran juntas un sistema: defina las dos (una sola lo emparejaría ' +
          'con el valor por omisión de otro sistema)',
      };
    }
    return {
      productoSvcAddr: env.PRODUCTO_SVC_ADDR!,
      bodegaSvcAddr: env.BODEGA_SVC_ADDR!,
      origen: 'PRODUCTO_SVC_ADDR / BODEGA_SVC_ADDR',
    };
  }
  if (byPort) {
    const problems = (['PRODUCTO_GRPC_PORT', 'BODEGA_GRPC_PORT'] as const)
      .filter((name) => set(name) && (!PORT.test(env[name]!) || Number(env[name]) > 65535))
      .map((name) => `${name}: debe ser un puerto (1..65535)`);
    if (problems.length > 0) return { error: problems.join('; ') };
    return {
      productoSvcAddr: `127.0.0.1:${env.PRODUCTO_GRPC_PORT || '50051'}`,
      bodegaSvcAddr: `127.0.0.1:${env.BODEGA_GRPC_PORT || '50052'}`,
      origen: 'PRODUCTO_GRPC_PORT / BODEGA_GRPC_PORT',
    };
  }
  if (record)
    return {
      productoSvcAddr: record.productoSvcAddr,
      bodegaSvcAddr: record.bodegaSvcAddr,
      origen: `npm start (pid ${record.pid})`,
    };
  return {
    error:
      'no hay sistema al que cargar los datos: no se está ejecutando ningún npm start de este repositorio. ' +
      'Arranque uno (npm start) ' +
      'o nombre el sistema: PRODUCTO_GRPC_PORT=<puerto> BODEGA_GRPC_PORT=<puerto> npm run seed (los puertos que ' +
      'recibió npm start), ' +
      'o PRODUCTO_SVC_ADDR=<host:puerto> BODEGA_SVC_ADDR=<host:puerto> npm run seed',
  };
}
