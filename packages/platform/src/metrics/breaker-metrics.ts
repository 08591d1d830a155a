import { Counter, Gauge, type Registry } from 'prom-client';

/** Spelt as the contract spells them. */
export const BREAKER_EVENTS = ['success', 'failure', 'reject', 'timeout', 'open', 'halfOpen', 'close'] as const;
export type BreakerEvent = (typeof BREAKER_EVENTS)[number];

/** `inventario_circuit_breaker_state` values: a number so alerts can say `== 2`. */
export const BREAKER_STATE_VALUES = { closed: 0, halfOpen: 1, open: 2 } as const;

export interface CircuitBreakerMetrics {
  state: Gauge<'breaker'>;
  events: Counter<'breaker' | 'event'>;
}

/** Every series exists from the start (closed, events at 0). */
export function createCircuitBreakerMetrics(registry: Registry, breakers: readonly string[]): CircuitBreakerMetrics {
  const metrics: CircuitBreakerMetrics = {
    state: new Gauge({
      name: 'inventario_circuit_breaker_state',
      help: 'Circuit breaker state per downstream service: 0 closed, 1 half-open, 2 open.',
      labelNames: ['breaker'] as const,
      registers: [registry],
    }),
    events: new Counter({
      name: 'inventario_circuit_breaker_events_total',
      help: 'Circuit breaker events per downstream service (success, failure, reject, timeout, open, halfOpen, close).',
      labelNames: ['breaker', 'event'] as const,
      registers: [registry],
    }),
  };
  for (const breaker of breakers) {
    metrics.state.set({ breaker }, BREAKER_STATE_VALUES.closed);
    for (const event of BREAKER_EVENTS) metrics.events.labels({ breaker, event }).inc(0);
  }
  return metrics;
}
