import { randomUUID } from 'node:crypto';
import { ConfigError, createLogger, readLauncherRecord } from '@inventario/platform';
import { loadConfig } from './config';
import { createDownstream } from './downstream/downstream';
import { createInventario } from './inventario/inventario';
import type { Caller } from './inventario/model';
import { describeSeedResult, seedSampleData } from './seed/datos-ejemplo';
import { DEFAULT_LAUNCHER_DATA_DIR, seedTarget } from './seed/seed-target';

const SEED_USUARIO = 'seed';

/**
 * `npm run seed`: the sample data through the services, with the BFF's downstream clients and configuration, into the
 * system it was aimed at (seed/seed-target.ts), which it names before writing anything.
 */
async function main(env: NodeJS.ProcessEnv): Promise<number> {
  const target = seedTarget(env, readLauncherRecord(env.LAUNCHER_DATA_DIR || DEFAULT_LAUNCHER_DATA_DIR));
  if ('error' in target) {
    process.stderr.write(`seed: ${target.error}\n`);
    return 2;
  }
  let config;
  try {
    config = loadConfig({
      ...env,
      PRODUCTO_SVC_ADDR: target.productoSvcAddr,
      BODEGA_SVC_ADDR: target.bodegaSvcAddr,
      // The seed serves no HTTP: the BFF's Basic-auth settings do not apply, but its schema requires them.
      BFF_USER: SEED_USUARIO,
      BFF_PASSWORD: randomUUID(),
      LOG_LEVEL: env.LOG_LEVEL || 'warn',
    });
  } catch (err) {
    process.stderr.write(`seed: ${err instanceof ConfigError ? err.message : String(err)}\n`);
    return 1;
  }

  process.stdout.write(
    `Sistema: producto-svc ${config.productoSvcAddr}, bodega-svc ${config.bodegaSvcAddr} (${target.origen})\n`,
  );
  const downstream = createDownstream(config, createLogger('seed', config.logLevel));
  try {
    // Services that require a principal (docs/contract.md §12.9) get the seed's own token, the chart's seed-token.
    const caller: Caller = { usuario: SEED_USUARIO, tokenDeServicio: env.SERVICE_TOKEN || undefined };
    const result = await seedSampleData(createInventario(downstream), caller);
    process.stdout.write(`${describeSeedResult(result)}\n`);
    return 0;
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    process.stderr.write(
      `seed: no se pudieron cargar los datos de ejemplo (producto-svc ${config.productoSvcAddr}, ` +
        `bodega-svc ${config.bodegaSvcAddr}): ${reason}\n`,
    );
    return 1;
  } finally {
    downstream.close();
  }
}

void main(process.env).then((code) => {
  process.exitCode = code;
});
