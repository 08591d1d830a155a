import type { Logger } from '../logger';

/**
 * Samples never overlap. A failed one is logged at debug and leaves the
 * gauges as they were: the sampled thing being down is health checks' to report.
 */
export function startSampler(
  what: string,
  intervalMs: number,
  sample: () => Promise<void>,
  logger: Logger,
): () => Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  let current: Promise<void> = Promise.resolve();
  let stopped = false;
  const run = () => {
    current = sample()
      .catch((err: unknown) =>
        logger.debug({ err: err instanceof Error ? err.message : String(err) }, `${what} sample failed`),
      )
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
