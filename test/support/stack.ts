/**
 * The in-process stack of `@inventario/testkit/stack` for the repository's own tests (the e2e suite, the README's
 * examples), bound to the services' src/ as the BFF's tests bind it (services/bff/test/support/stack.ts).
 */
import { inProcessStacks } from '@inventario/testkit/stack';
import { startApp as startBff } from '../../services/bff/src/app';
import { loadConfig as bffConfig } from '../../services/bff/src/config';
import { startApp as startBodega } from '../../services/bodega-svc/src/app';
import { loadConfig as bodegaConfig } from '../../services/bodega-svc/src/config';
import { startApp as startIdentidad } from '../../services/identidad-svc/src/app';
import { loadConfig as identidadConfig } from '../../services/identidad-svc/src/config';
import { startApp as startProducto } from '../../services/producto-svc/src/app';
import { loadConfig as productoConfig } from '../../services/producto-svc/src/config';

export const { startTestStack } = inProcessStacks({
  'producto-svc': async (env, logger) => startProducto(productoConfig(env), logger),
  'bodega-svc': async (env, logger) => startBodega(bodegaConfig(env), logger),
  'identidad-svc': async (env, logger) => startIdentidad(identidadConfig(env), logger),
  bff: async (env, logger) => startBff(bffConfig(env), logger),
});
