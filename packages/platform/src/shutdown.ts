import { setTimeout as sleep } from 'node:timers/promises';
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
  /**
   * Flushed after every step ('tracing flush'), so the spans of calls that
   * finish during shutdown go out too.
   */
  tracing?: { shutdown(): Promise<void> };
  exit?: (code: number) => void;
}

/**
 * The process's shutdown: returns a function that runs the written sequence
 * once (later calls return the same promise), within the deadline, then
 * exits. A process's main hands it to listenForStop, which calls it on the
 * first stop request.
 */
export function createShutdown(options: ShutdownOptions): () => Promise<void> {
  const exit = options.exit ?? ((code: number) => process.exit(code));
  let started: Promise<void> | undefined;

  const shutdown = (): Promise<void> => {
    if (started) return started;
    started = (async () => {
      const deadline = setTimeout(() => {
        options.logger.error({ deadlineMs: options.deadlineMs }, 'shutdown deadline exceeded; exiting');
        options.logger.flush();
        exit(1);
      }, options.deadlineMs);
      deadline.unref();
      const steps = options.tracing
        ? [...options.steps, { name: 'tracing flush', run: () => options.tracing!.shutdown() }]
        : options.steps;
      for (const step of steps) {
        try {
          options.logger.info({ step: step.name }, 'shutdown step');
          await step.run();
        } catch (err) {
          options.logger.error({ step: step.name, err }, 'shutdown step failed');
        }
      }
      clearTimeout(deadline);
      options.logger.info('shutdown complete');
      // Whatever the destination buffers must reach stdout before the process ends.
      options.logger.flush();
      exit(0);
    })();
    return started;
  };

  return shutdown;
}

/**
 * The shutdown steps as one `stop()` for tests and embedders: runs them once,
 * in order; a failing step is logged and the rest still run. Later calls
 * return the same promise.
 */
export function stopOnce(steps: ShutdownStep[], logger: Logger): () => Promise<void> {
  let stopped: Promise<void> | undefined;
  return () => {
    stopped ??= (async () => {
      for (const step of steps) {
        try {
          await step.run();
        } catch (err) {
          logger.error({ step: step.name, err }, 'shutdown step failed');
        }
      }
    })();
    return stopped;
  };
}

/**
 * The first steps of a gRPC service's shutdown, in their order: health
 * NOT_SERVING, the drain delay (load balancers and clients see NOT_SERVING
 * before the port closes), then the server, whose in-flight calls get half
 * of what the deadline leaves after the drain (the other half is for the
 * consumers, relay, NATS drain and pool that follow).
 */
export function grpcServingShutdownSteps(options: {
  health: { stop(): void; setServing(serving: boolean): void };
  grpc: { shutdown(graceMs: number): Promise<void> };
  shutdownTimeoutMs: number;
  shutdownDrainMs: number;
}): ShutdownStep[] {
  const { health, grpc, shutdownTimeoutMs, shutdownDrainMs } = options;
  const graceMs = Math.max(0, shutdownTimeoutMs - shutdownDrainMs) / 2;
  return [
    {
      name: 'health NOT_SERVING',
      run: () => {
        health.stop();
        health.setServing(false);
      },
    },
    { name: 'drain delay', run: () => sleep(shutdownDrainMs) },
    { name: 'grpc server', run: () => grpc.shutdown(graceMs) },
  ];
}
