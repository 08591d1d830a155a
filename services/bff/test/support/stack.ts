/**
 * The in-process stacks of `@inventario/testkit/stack` bound to the services' src/ (the BFF's tests and the stack
 * then share one copy of every module): startTestStack (the whole back end and the BFF), startTestBackend (the two
 * gRPC services alone), startTestIdentidad.
 */
import { inProcessStacks } from '@inventario/testkit/stack';
import { startApp as startBff } from '../../src/app';
import { loadConfig as bffConfig } from '../../src/config';
import { startApp as startBodega } from '../../../bodega-svc/src/app';
import { loadConfig as bodegaConfig } from '../../../bodega-svc/src/config';
import { startApp as startIdentidad } from '../../../identidad-svc/src/app';
import { loadConfig as identidadConfig } from '../../../identidad-svc/src/config';
import { startApp as startProducto } from '../../../producto-svc/src/app';
import { loadConfig as productoConfig } from '../../../producto-svc/src/config';

export { basicAuth, httpRequest, type StackRequestOptions, type StackResponse } from '@inventario/testkit';
export {
  backendEnv,
  cleanupList,
  LOG_LEVEL,
  TEST_BFF_ENV,
  TEST_PASSWORD,
  TEST_USER,
  type TestBackend,
  type TestIdentidad,
  type TestStack,
} from '@inventario/testkit/stack';

export const { startTestBackend, startTestIdentidad, startTestStack } = inProcessStacks({
  'producto-svc': async (env, logger) => startProducto(productoConfig(env), logger),
  'bodega-svc': async (env, logger) => startBodega(bodegaConfig(env), logger),
  'identidad-svc': async (env, logger) => startIdentidad(identidadConfig(env), logger),
  bff: async (env, logger) => startBff(bffConfig(env), logger),
});
