/**
 * Bench-only preload (`NODE_OPTIONS=--require .../loop-monitor.js`): samples
 * this process's event-loop delay with perf_hooks' monitorEventLoopDelay and
 * answers the harness over the IPC channel the harness opened: `reset` at
 * the start of a load window, `read` at its end (with the heap in use,
 * after a full GC when asked, for the soak's memory figures). Nothing else of the
 * process changes; without an IPC channel it does nothing.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { getHeapSpaceStatistics } from 'node:v8';
import { LOOP_READ, LOOP_RESET, LOOP_SAMPLE, type LoopSample } from './loop-protocol';

function memory(): Pick<LoopSample, 'heapUsedBytes' | 'heapTotalBytes' | 'externalBytes' | 'spaceBytes'> {
  const { heapUsed, heapTotal, external } = process.memoryUsage();
  const spaceBytes = Object.fromEntries(getHeapSpaceStatistics().map((s) => [s.space_name, s.space_size]));
  return { heapUsedBytes: heapUsed, heapTotalBytes: heapTotal, externalBytes: external, spaceBytes };
}

/** Time after a forced GC for V8's unmapper to return the freed pages (measured: well under 1 s). */
const GC_SETTLE_MS = 1000;

/**
 * The sampling timer's period. The histogram records the whole time between
 * two timer runs, so an idle loop reads RESOLUTION_MS: the delay is what
 * exceeds it.
 */
const RESOLUTION_MS = 10;

/** Nanoseconds between timer runs -> milliseconds of delay beyond the period. */
const delayMs = (ns: number) => Math.max(0, ns / 1e6 - RESOLUTION_MS);

if (process.send) {
  const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  histogram.enable();
  process.on('message', (message: { type?: unknown; gc?: unknown } | null) => {
    if (message?.type === LOOP_RESET) histogram.reset();
    if (message?.type === LOOP_READ) {
      const delay = {
        p99Ms: delayMs(histogram.percentile(99)),
        maxMs: delayMs(histogram.max),
        meanMs: delayMs(histogram.mean),
      };
      if (message.gc !== true) {
        process.send?.({ type: LOOP_SAMPLE, ...delay, ...memory() } satisfies LoopSample);
        return;
      }
      // The harness starts children with --expose-gc: a full collection first
      // makes the heap figure what is retained, not what awaits collection.
      // V8 hands the freed pages back to the OS from a background thread a
      // moment later, so the answer (after which the harness reads RSS)
      // waits for that too; otherwise RSS would count memory already given up.
      (globalThis as { gc?: () => void }).gc?.();
      const sample: LoopSample = { type: LOOP_SAMPLE, ...delay, ...memory() };
      setTimeout(() => process.send?.(sample), GC_SETTLE_MS);
    }
  });
}
