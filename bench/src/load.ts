import autocannon from 'autocannon';
import { percentile } from './stats';

/**
 * What one request carries from its `setup` to its `onResponse`:
 * autocannon's per-request context (it clears it before each next request
 * of a connection), or a plain object outside autocannon.
 */
export type RequestContext = Record<string, unknown>;

/** The headers of an answer, as autocannon gives them: names as the server sent them. */
export type ResponseHeaders = Record<string, string | string[] | undefined>;

/** What varies per request: its path, body and extra headers. */
export interface RequestVariant {
  path?: string;
  body?: string;
  headers?: Record<string, string>;
}

/** One request shape of a target; `setup` fills in what varies per request (a random id, a fresh body, a key). */
export interface RequestShape {
  method: 'GET' | 'POST' | 'PUT';
  path: string;
  headers?: Record<string, string>;
  body?: string;
  /** Called before each request: returns its path, body and extra headers (merged over `headers`). */
  setup?: (context: RequestContext) => RequestVariant;
  /**
   * Called with each answer and the context its `setup` filled: a
   * conditional PUT keeps the ETag its product now has.
   */
  onResponse?: (status: number, body: string, headers: ResponseHeaders, context: RequestContext) => void;
  /**
   * False for a 2xx answer that is still a failure (a GraphQL `errors`
   * body): counted as an error, not as a served request.
   */
  verifyBody?: (body: string) => boolean;
  /**
   * A second request each connection sends after this one, sharing its context (issue 24: a reservation, then its
   * consumption). The window then counts a unit of work per pair: `requests` and `reqPerSec` are pairs, latencies
   * those of each HTTP request.
   */
  then?: RequestShape;
}

export interface LoadOptions {
  url: string;
  request: RequestShape;
  connections: number;
  durationSeconds: number;
  /** Requests per second over all connections; unlimited when absent. */
  overallRate?: number;
}

/**
 * What one load window measured. Only successful answers (2xx, and a body
 * that passed `verifyBody`) count as served requests; latencies are those
 * of the 2xx answers, in ms.
 */
export interface LoadResult {
  requests: number;
  reqPerSec: number;
  p50: number;
  p99: number;
  /** Non-2xx answers, 2xx answers whose body failed verifyBody, connection errors and timeouts. */
  errors: number;
  /** Status codes other than 2xx, `body` (failed verifyBody) and `timeout`, with their counts (to explain errors). */
  statuses: Record<string, number>;
}

/**
 * Runs autocannon for one window. Latencies are taken from its `response`
 * events (milliseconds with sub-ms precision) rather than its histogram,
 * which keeps whole milliseconds only: the one-connection targets are about
 * fractions of a millisecond.
 */
export function runLoad(options: LoadOptions): Promise<LoadResult> {
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  const { request } = options;
  const steps = request.then ? [request, request.then] : [request];
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: options.url,
        connections: options.connections,
        duration: options.durationSeconds,
        ...(options.overallRate === undefined ? {} : { overallRate: options.overallRate }),
        timeout: 10,
        ...(request.verifyBody
          ? { verifyBody: (body: string | Buffer | undefined) => request.verifyBody?.(String(body ?? '')) ?? true }
          : {}),
        requests: steps.map((step) => ({
          method: step.method,
          path: step.path,
          headers: step.headers,
          body: step.body,
          ...(step.setup
            ? {
                setupRequest: (req: autocannon.Request, context: object) => {
                  const { headers, ...rest } = step.setup?.(context as RequestContext) ?? {};
                  return { ...req, ...rest, ...(headers ? { headers: { ...req.headers, ...headers } } : {}) };
                },
              }
            : {}),
          ...(step.onResponse
            ? {
                onResponse: (status: number, body: string, context: object, headers: autocannon.Request['headers']) =>
                  step.onResponse?.(status, String(body ?? ''), headers ?? {}, context as RequestContext),
              }
            : {}),
        })),
      },
      (err: unknown, result: autocannon.Result) => {
        if (err) return reject(err instanceof Error ? err : new Error('autocannon failed', { cause: err }));
        const seconds = result.duration > 0 ? result.duration : options.durationSeconds;
        if (result.mismatches > 0) statuses.body = result.mismatches;
        if (result.timeouts > 0) statuses.timeout = result.timeouts;
        // A sequence's unit of work is the whole sequence.
        const served = Math.max(0, latencies.length - result.mismatches) / steps.length;
        resolve({
          requests: served,
          reqPerSec: served / seconds,
          p50: percentile(latencies, 0.5),
          p99: percentile(latencies, 0.99),
          // autocannon's `errors` already counts its timeouts.
          errors: result.non2xx + result.errors + result.mismatches,
          statuses,
        });
      },
    );
    // autocannon emits (client, statusCode, bytes, ms); its typings omit the client.
    (instance as unknown as NodeJS.EventEmitter).on(
      'response',
      (_client: unknown, status: number, _bytes: number, ms: number) => {
        if (status >= 200 && status <= 299) latencies.push(ms);
        else statuses[status] = (statuses[status] ?? 0) + 1;
      },
    );
  });
}
