import type { Logger } from './logger';

export interface ShutdownStep {
  name: string;
  run(): Promise<void> | void;
}

export interface ShutdownOptions {
  logger: Logger;
  /** Run in order; a failing step is logged and the sequence goes on. */
  steps: ShutdownStep[];
  /** Hard deadline: exit 1 if the sequence has not finished by then. */
  deadlineMs: number;
  exit?: (code: number) => void;
}

/**
 * Runs the written shutdown sequence once, on the first SIGTERM or SIGINT.
 * Returns the function, so tests and launchers can trigger it directly.
 */
export function installShutdown(options: ShutdownOptions): () => Promise<void> {
  const exit = options.exit ?? ((code: number) => process.exit(code));
  let started: Promise<void> | undefined;

  const shutdown = (): Promise<void> => {
    if (started) return started;
    started = (async () => {
      const deadline = setTimeout(() => {
        options.logger.error({ deadlineMs: options.deadlineMs }, 'shutdown deadline exceeded; exiting');
        exit(1);
      }, options.deadlineMs);
      deadline.unref();
      for (const step of options.steps) {
        try {
          options.logger.info({ step: step.name }, 'shutdown step');
          await step.run();
        } catch (err) {
          options.logger.error({ step: step.name, err }, 'shutdown step failed');
        }
      }
      clearTimeout(deadline);
      options.logger.info('shutdown complete');
      exit(0);
    })();
    return started;
  };

  process.once('SIGTERM', () => void shutdown());
  process.once('SIGINT', () => void shutdown());
  return shutdown;
}
