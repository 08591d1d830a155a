import type { EventEmitter } from 'node:events';
import CircuitBreaker from 'opossum';
import { BREAKER_EVENTS, BREAKER_STATE_VALUES, type CircuitBreakerMetrics, type Logger } from '@inventario/platform';
import { isNotBreakerFailure } from './grpc-errors';

export interface BreakerOptions {
  /** How long an open breaker refuses calls before letting one through. */
  resetMs: number;
  /** Failed share of the calls in the window, in percent, that opens it. */
  errorThresholdPercent: number;
  /** Calls the window must hold before the share counts. */
  volumeThreshold: number;
  /** Length of the rolling window. */
  windowMs: number;
}

/** Where a breaker stands, as /actuator/health reports it. */
export type BreakerState = 'closed' | 'open' | 'halfOpen';

/** One circuit breaker in front of one downstream service. */
export interface Breaker {
  /** Runs `call` unless the breaker is open; rejects with opossum's EOPENBREAKER error when it is. */
  run<T>(call: () => Promise<T>): Promise<T>;
  state(): BreakerState;
  /** Stops its timers. */
  shutdown(): void;
}

/**
 * An opossum breaker for one service. Domain answers (NOT_FOUND,
 * INVALID_ARGUMENT, ALREADY_EXISTS, FAILED_PRECONDITION, ABORTED) and
 * size limits (RESOURCE_EXHAUSTED) count as successes: a client asking for
 * a missing id, or one oversized request, must not trip the breaker for everyone.
 * No opossum timeout: every call already carries a gRPC deadline, which also
 * cancels the call (an opossum timeout would leave it running).
 * Its state and every event are exported as metrics labelled `breaker=<servicio>`.
 */
export function createBreaker(
  servicio: string,
  options: BreakerOptions,
  logger: Logger,
  metrics: CircuitBreakerMetrics,
): Breaker {
  const breaker = new CircuitBreaker((call: () => Promise<unknown>) => call(), {
    name: servicio,
    timeout: false,
    resetTimeout: options.resetMs,
    errorThresholdPercentage: options.errorThresholdPercent,
    volumeThreshold: options.volumeThreshold,
    rollingCountTimeout: options.windowMs,
    rollingCountBuckets: 10,
    errorFilter: isNotBreakerFailure,
  });
  breaker.on('open', () => logger.warn({ servicio, retryInMs: options.resetMs }, 'circuit breaker open'));
  breaker.on('halfOpen', () => logger.info({ servicio }, 'circuit breaker half-open: trying one call'));
  breaker.on('close', () => logger.info({ servicio }, 'circuit breaker closed'));
  const state = (): BreakerState => (breaker.opened ? 'open' : breaker.halfOpen ? 'halfOpen' : 'closed');
  // Series bound once (every call fires `success` or `failure`): no label objects per call.
  const stateGauge = metrics.state.labels({ breaker: servicio });
  const setState = () => stateGauge.set(BREAKER_STATE_VALUES[state()]);
  setState();
  // opossum types each event's listener apart; these listeners ignore the arguments.
  const events: EventEmitter = breaker;
  for (const event of BREAKER_EVENTS) {
    const counter = metrics.events.labels({ breaker: servicio, event });
    // Only these three change the state.
    const changesState = event === 'open' || event === 'halfOpen' || event === 'close';
    events.on(
      event,
      changesState
        ? () => {
            counter.inc();
            setState();
          }
        : () => counter.inc(),
    );
  }

  return {
    // The breaker passes `call`'s result through untouched.
    run: <T>(call: () => Promise<T>) => breaker.fire(call) as Promise<T>,
    state,
    shutdown: () => breaker.shutdown(),
  };
}
