import { collectDefaultMetrics, Registry } from 'prom-client';

/**
 * A service's own prom-client registry, never the global one: two services
 * started in one process (as in tests) must not count into each other.
 * Every series carries `service="<name>"` (bff, producto-svc, bodega-svc,
 * notifier), and the process metrics (memory, CPU, event-loop lag, heap)
 * are collected into it.
 */
export function createServiceRegistry(service: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });
  return registry;
}
