/**
 * `@inventario/testkit/stack`: the back end in the test process (producto-svc, bodega-svc, identidad-svc when asked,
 * and the BFF), for the BFF's tests and the repository's system tests. The BUILT services as processes are
 * `startServiceProcess` (the spawner) and `@inventario/testkit/grpc`.
 */
import { startTestBackend, type InProcessServices, type TestBackend, type TestBackendOptions } from './backend';
import { startTestIdentidad, type TestIdentidad, type TestIdentidadOptions } from './identidad';
import { startTestStack, type TestStack, type TestStackOptions } from './stack';

export {
  cleanupList,
  LOG_LEVEL,
  type InProcessBff,
  type InProcessServices,
  type StartInProcess,
  type TestBackend,
  type TestBackendOptions,
} from './backend';
export { identidadRpcOf, type IdentidadRpc, type TestIdentidad, type TestIdentidadOptions } from './identidad';
export {
  backendEnv,
  IDENTIDAD_BY_DEFAULT,
  TEST_BFF_ENV,
  TEST_PASSWORD,
  TEST_USER,
  type TestStack,
  type TestStackOptions,
} from './stack';

/** The stacks' starters bound to one workspace's services (its test/support/stack.ts calls this once). */
export function inProcessStacks(services: InProcessServices): {
  startTestBackend(label: string, options?: TestBackendOptions): Promise<TestBackend>;
  startTestIdentidad(label: string, options: TestIdentidadOptions): Promise<TestIdentidad>;
  startTestStack(label: string, options?: TestStackOptions): Promise<TestStack>;
} {
  return {
    startTestBackend: (label, options) => startTestBackend(services, label, options),
    startTestIdentidad: (label, options) => startTestIdentidad(services, label, options),
    startTestStack: (label, options) => startTestStack(services, label, options),
  };
}
