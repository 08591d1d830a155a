import { collectDefaultMetrics, Registry } from 'prom-client';

/**
 * A registry per service, never the global one, so two services in one process (tests) do not count into each other;
 * every series has `service`.
 */
export function createServiceRegistry(service: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });
  return registry;
}
