/** The IPC messages between the harness and loop-monitor.ts in each child. */
export const LOOP_RESET = 'bench:loop-reset';
export const LOOP_READ = 'bench:loop-read';
export const LOOP_SAMPLE = 'bench:loop-sample';

/** Event-loop delay since the last reset, in milliseconds, and the V8 heap in use now. */
export interface LoopSample {
  type: typeof LOOP_SAMPLE;
  p99Ms: number;
  maxMs: number;
  meanMs: number;
  /** process.memoryUsage().heapUsed: tells a growing JS heap from other RSS growth. */
  heapUsedBytes: number;
  /** process.memoryUsage().heapTotal: what V8 holds from the OS for the heap, used or not. */
  heapTotalBytes: number;
  /** process.memoryUsage().external: native memory of JS objects (Buffers among them). */
  externalBytes: number;
  /**
   * Committed bytes of each V8 heap space (v8.getHeapSpaceStatistics: new_space, old_space, ...), to say which one
   * grew.
   */
  spaceBytes: Record<string, number>;
}
