/**
 * One HTTP/1.1 request with node:http, for tests that need what fetch will
 * not send (a body on GET or DELETE, an OPTIONS with no body rules, any
 * method) and a hard client-side bound: a request not answered within
 * `timeoutMs` rejects as a hang instead of waiting for jest's timeout.
 */
import { request } from 'node:http';

export interface RawRequest {
  method: string;
  /** Path and query, already percent-encoded. */
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** The client gives up (and the test fails as a hang) after this long. */
  timeoutMs: number;
  /** Send the body chunked (no Content-Length). */
  chunked?: boolean;
  /** The client's own address, e.g. `127.0.0.2` to be another client of a server on 127.0.0.1. */
  localAddress?: string;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  text: string;
  /** The parsed JSON body, or undefined when it is empty or not JSON. */
  body: unknown;
}

function bodyLength(options: RawRequest): Record<string, string> {
  if (options.body === undefined) return {};
  return options.chunked ? { 'transfer-encoding': 'chunked' } : { 'content-length': String(Buffer.byteLength(options.body)) };
}

export function rawRequest(baseUrl: string, options: RawRequest): Promise<RawResponse> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        method: options.method,
        path: options.path,
        headers: { ...options.headers, ...bodyLength(options) },
        localAddress: options.localAddress,
        signal: AbortSignal.timeout(options.timeoutMs),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let body: unknown;
          try {
            body = text === '' ? undefined : JSON.parse(text);
          } catch {
            body = undefined;
          }
          const headers: Record<string, string> = {};
          for (const [name, value] of Object.entries(res.headers)) if (value !== undefined) headers[name] = String(value);
          resolve({ status: res.statusCode ?? 0, headers, text, body });
        });
      },
    );
    req.on('error', (err) => reject(new Error(`${options.method} ${options.path.slice(0, 200)}: ${err.message}`)));
    req.end(options.body);
  });
}
