import type { Child } from './children';
import { runLoad, type LoadResult } from './load';
import type { Target } from './targets';

/** RSS of one process over the soak, in MiB; growth is measured after the warm-up share. */
export interface RssFigures {
  name: string;
  baselineMiB: number;
  finalMiB: number;
  maxMiB: number;
  /** (final - baseline) / baseline, in percent. */
  growthPct: number;
  /**
   * The same growth from the plain RSS samples, no GC forced: the mean of
   * the window after the baseline moment against the mean of the last
   * window of the same length. What a production process shows.
   */
  sampledGrowthPct: number;
  /** Mean RSS (MiB) of the plain samples in each fifth of the soak: where it levels off. */
  fifthsMiB: number[];
  /** V8 heap retained (in use after a full GC) at the baseline moment and at the end. */
  baselineHeapMiB: number;
  finalHeapMiB: number;
  /** V8 heap committed (heapTotal) and native memory of JS objects (external), after the GC at each end. */
  baselineHeapTotalMiB: number;
  finalHeapTotalMiB: number;
  baselineExternalMiB: number;
  finalExternalMiB: number;
  /**
   * Growth of each V8 heap space's committed size from the baseline moment to the end, MiB (only those that moved by 1
   * MiB or more).
   */
  spaceGrowthMiB: Record<string, number>;
}

export interface SoakFigures {
  seconds: number;
  rate: number;
  load: LoadResult;
  /** When the baseline RSS was taken (s into the soak). */
  baselineAtSeconds: number;
  rss: RssFigures[];
}

const MiB = 1024 * 1024;

/**
 * `target` at `rate` requests/s (half the measured maximum) for `seconds`,
 * while `alongside` runs (the paced writes, so the relay and the notifier
 * work too). RSS of every child is sampled throughout (the max); growth
 * compares RSS after a full GC at the baseline moment (after the first
 * minute, or a fifth of a shorter soak) with RSS after a full GC at the
 * end, so both ends are measured alike and a pending collection is not
 * read as growth. The heap retained at both moments tells a JS leak from
 * other memory.
 */
export async function soak(
  target: Target,
  children: readonly Child[],
  rate: number,
  seconds: number,
  alongside: Promise<unknown>,
): Promise<SoakFigures> {
  const baselineAtSeconds = Math.min(60, seconds / 5);
  /** Every RSS sample of each child, with its time in seconds since the soak began. */
  const samples = new Map<string, { at: number; rss: number }[]>(children.map((c) => [c.name, []]));
  const began = performance.now();
  /** Heap retained and RSS right after a full GC, at the baseline moment and at the end: both ends measured alike. */
  const settled = new Map<
    string,
    Partial<
      Record<
        'baseline' | 'final',
        { heap: number; heapTotal: number; external: number; spaces: Record<string, number>; rss: number }
      >
    >
  >(children.map((c) => [c.name, {}]));
  const sample = () => {
    for (const child of children) {
      try {
        const rss = child.rss();
        samples.get(child.name)?.push({ at: (performance.now() - began) / 1000, rss });
      } catch {
        // the process is gone: its row shows what was sampled before
      }
    }
  };
  /** One full GC in each child (only at the baseline and at the end), then its heap in use and RSS. */
  const afterGc = (moment: 'baseline' | 'final') =>
    Promise.all(
      children.map(async (child) => {
        try {
          const read = await child.readLoop(true);
          const entry = settled.get(child.name);
          if (entry) {
            entry[moment] = {
              heap: read.heapUsedBytes,
              heapTotal: read.heapTotalBytes,
              external: read.externalBytes,
              spaces: read.spaceBytes,
              rss: child.rss(),
            };
          }
        } catch {
          // the process is gone: n/a in its row
        }
      }),
    );
  sample();
  const timer = setInterval(sample, Math.max(1000, (seconds * 1000) / 100));
  const baselineTimer = setTimeout(() => void afterGc('baseline'), baselineAtSeconds * 1000);
  let load: LoadResult;
  try {
    [load] = await Promise.all([
      runLoad({
        url: target.url,
        request: target.request,
        connections: 10,
        durationSeconds: seconds,
        overallRate: rate,
      }),
      alongside,
    ]);
  } finally {
    clearInterval(timer);
    clearTimeout(baselineTimer);
  }
  sample();
  const endedAt = (performance.now() - began) / 1000;
  await afterGc('final');
  /** Mean RSS of the samples taken in [from, to) seconds. */
  const meanRss = (name: string, from: number, to: number) => {
    const inWindow = (samples.get(name) ?? []).filter((s) => s.at >= from && s.at < to);
    return inWindow.reduce((sum, s) => sum + s.rss, 0) / inWindow.length;
  };
  const rss = children.map((child): RssFigures => {
    const ends = settled.get(child.name) ?? {};
    const baseline = ends.baseline?.rss ?? Number.NaN;
    const final = ends.final?.rss ?? Number.NaN;
    const early = meanRss(child.name, baselineAtSeconds, 2 * baselineAtSeconds);
    const late = meanRss(child.name, endedAt - baselineAtSeconds, endedAt + 1);
    const spaceGrowthMiB = Object.fromEntries(
      Object.entries(ends.final?.spaces ?? {})
        .map(([space, bytes]): [string, number] => [
          space,
          (bytes - (ends.baseline?.spaces[space] ?? Number.NaN)) / MiB,
        ])
        .filter(([, grown]) => Math.abs(grown) >= 1),
    );
    return {
      spaceGrowthMiB,
      sampledGrowthPct: ((late - early) / early) * 100,
      fifthsMiB: [0, 1, 2, 3, 4].map(
        (i) => meanRss(child.name, (i * endedAt) / 5, ((i + 1) * endedAt) / 5 + (i === 4 ? 1 : 0)) / MiB,
      ),
      baselineHeapMiB: (ends.baseline?.heap ?? Number.NaN) / MiB,
      finalHeapMiB: (ends.final?.heap ?? Number.NaN) / MiB,
      baselineHeapTotalMiB: (ends.baseline?.heapTotal ?? Number.NaN) / MiB,
      finalHeapTotalMiB: (ends.final?.heapTotal ?? Number.NaN) / MiB,
      baselineExternalMiB: (ends.baseline?.external ?? Number.NaN) / MiB,
      finalExternalMiB: (ends.final?.external ?? Number.NaN) / MiB,
      name: child.name,
      baselineMiB: baseline / MiB,
      finalMiB: final / MiB,
      maxMiB: (samples.get(child.name) ?? []).reduce((max, s) => Math.max(max, s.rss), Number.NEGATIVE_INFINITY) / MiB,
      growthPct: ((final - baseline) / baseline) * 100,
    };
  });
  return { seconds, rate, load, baselineAtSeconds, rss };
}
