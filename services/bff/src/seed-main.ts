import { randomUUID } from 'node:crypto';
import { ConfigError, createLogger } from '@inventario/platform';
import { loadConfig } from './config';
import { createDownstream } from './downstream/downstream';
import { createInventario } from './inventario/inventario';
import type { Caller } from './inventario/model';
import { describeSeedResult, seedSampleData } from './inventario/seed';

const SEED_CALLER: Caller = { usuario: 'seed' };

/** `npm run seed`: the sample data through the services, with the BFF's downstream clients and configuration. */
async function main(env: NodeJS.ProcessEnv): Promise<number> {
  let config;
  try {
    config = loadConfig({
      ...env,
      // The seed serves no HTTP: the BFF's Basic-auth settings do not apply, but its schema requires them.
      BFF_USER: SEED_CALLER.usuario,
      BFF_PASSWORD: randomUUID(),
      LOG_LEVEL: env.LOG_LEVEL || 'warn',
    });
  } catch (err) {
    process.stderr.write(`seed: ${err instanceof ConfigError ? err.message : String(err)}\n`);
    return 1;
  }

  const downstream = createDownstream(config, createLogger('seed', config.logLevel));
  try {
    const result = await seedSampleData(createInventario(downstream), SEED_CALLER);
    process.stdout.write(`${describeSeedResult(result)}\n`);
    return 0;
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    process.stderr.write(
      `seed: no se pudieron cargar los datos de ejemplo (producto-svc ${config.productoSvcAddr}, ` + `bodega-svc ${config.bodegaSvcAddr}): ${reason}\n`,
    );
    return 1;
  } finally {
    downstream.close();
  }
}

void main(process.env).then((code) => {
  process.exitCode = code;
});
