/**
 * A small closed-loop load generator for fault tests: `concurrency` workers
 * each send one request after another (fetch, keep-alive connections) and
 * record every outcome with its timing, so a test can say exactly which
 * requests failed, when, and how.
 */

/** One request's outcome: its HTTP status, or the network error that ended it. */
export interface LoadSample {
  worker: number;
  /** Date.now() when the request was sent and when it ended. */
  startedAt: number;
  endedAt: number;
  ms: number;
  /** HTTP status, or undefined when no response came. */
  status?: number;
  /** `error` field of a JSON error body. */
  error?: string;
  /** The network error's code (ECONNREFUSED, ECONNRESET, UND_ERR_SOCKET...) when no response came. */
  networkError?: string;
}

export interface Load {
  /** Outcomes so far, in completion order. */
  readonly samples: LoadSample[];
  /** Stops sending; resolves with every outcome once the requests in flight have ended. */
  stop(): Promise<LoadSample[]>;
}

export interface LoadOptions {
  concurrency: number;
  /** Sends request number `n` of `worker`; must resolve with the Response (or reject with fetch's error). */
  send(worker: number, n: number): Promise<Response>;
  /** Checked before each request; once false the worker stops (a proxy that follows readiness stops routing). */
  keepSending?(): boolean;
  /** A worker stops for good after an outcome for which this returns true (e.g. a refused connection). */
  stopWorkerAfter?(sample: LoadSample): boolean;
  /** Pause between one worker's requests (default 0). */
  pauseMs?: number;
}

/** The innermost `code` of a fetch error (undici wraps the socket error in `cause`). */
export function networkErrorCode(err: unknown): string {
  let current: unknown = err;
  let code = 'UNKNOWN';
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth++) {
    if ('code' in current && typeof current.code === 'string') code = current.code;
    current = 'cause' in current ? current.cause : undefined;
  }
  return code;
}

export function startLoad(options: LoadOptions): Load {
  const samples: LoadSample[] = [];
  let stopping = false;

  async function worker(id: number): Promise<void> {
    for (let n = 0; !stopping && (options.keepSending?.() ?? true); n++) {
      const startedAt = Date.now();
      const sample: LoadSample = { worker: id, startedAt, endedAt: startedAt, ms: 0 };
      try {
        const res = await options.send(id, n);
        const text = await res.text();
        sample.status = res.status;
        if (res.status >= 400) sample.error = errorField(text);
      } catch (err) {
        sample.networkError = networkErrorCode(err);
      }
      sample.endedAt = Date.now();
      sample.ms = sample.endedAt - startedAt;
      samples.push(sample);
      if (options.stopWorkerAfter?.(sample)) return;
      if (options.pauseMs) await new Promise((resolve) => setTimeout(resolve, options.pauseMs));
    }
  }

  const running = Promise.all(Array.from({ length: options.concurrency }, (_, id) => worker(id)));
  return {
    samples,
    async stop() {
      stopping = true;
      await running;
      return samples;
    },
  };
}

function errorField(text: string): string | undefined {
  try {
    const body = JSON.parse(text) as { error?: unknown };
    return typeof body.error === 'string' ? body.error : undefined;
  } catch {
    return undefined;
  }
}

/** Counts of outcomes by status or network error, e.g. `{ '200': 812, '503': 40, ECONNREFUSED: 3 }`. */
export function tally(samples: LoadSample[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const s of samples) {
    const key = s.status !== undefined ? String(s.status) : (s.networkError ?? 'UNKNOWN');
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}
