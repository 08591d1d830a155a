import type { Logger } from '../logger';

/**
 * Runs `sample` now and then every `intervalMs` until stopped, one at a time
 * (a slow sample delays the next, never overlaps it). A failed sample is
 * logged at debug and leaves the gauges at their last value: the thing
 * sampled being down is reported by health checks, not by the metrics.
 */
export function startSampler(what: string, intervalMs: number, sample: () => Promise<void>, logger: Logger): () => Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  let current: Promise<void> = Promise.resolve();
  let stopped = false;
  const run = () => {
    current = sample()
      .catch((err: unknown) => logger.debug({ err: err instanceof Error ? err.message : String(err) }, `${what} sample failed`))
      .finally(() => {
        if (!stopped) timer = setTimeout(run, intervalMs).unref();
      });
  };
  run();
  return async () => {
    stopped = true;
    clearTimeout(timer);
    await current;
  };
}
