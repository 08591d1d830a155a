/**
 * One HTTP/1.1 request with node:http, for tests that need what fetch will
 * not send (a body on GET or DELETE, an OPTIONS with no body rules, any
 * method) and a hard client-side bound: a request not answered within
 * `timeoutMs` rejects as a hang instead of waiting for jest's timeout.
 */
import { request } from 'node:http';
import { connect as netConnect, type Socket } from 'node:net';

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
  return options.chunked
    ? { 'transfer-encoding': 'chunked' }
    : { 'content-length': String(Buffer.byteLength(options.body)) };
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
          for (const [name, value] of Object.entries(res.headers))
            if (value !== undefined) headers[name] = String(value);
          resolve({ status: res.statusCode ?? 0, headers, text, body });
        });
      },
    );
    req.on('error', (err) => reject(new Error(`${options.method} ${options.path.slice(0, 200)}: ${err.message}`)));
    req.end(options.body);
  });
}

/** One request of a pipelined burst: method, path, headers and an optional body (sent with its Content-Length). */
export interface PipelinedRequest {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

/** A response read off a pipelined connection: status, headers and body text. */
export interface PipelinedResponse {
  status: number;
  headers: Record<string, string>;
  text: string;
}

/**
 * Writes every request to ONE connection in a single write (HTTP/1.1
 * pipelining: the server parses them all before answering the first) and
 * reads their responses in order. Every response must carry a
 * Content-Length (the BFF's JSON answers do). Rejects when the server
 * closes early or `timeoutMs` passes before all of them arrived.
 */
export function pipelinedRequests(
  baseUrl: string,
  requests: PipelinedRequest[],
  timeoutMs: number,
): Promise<PipelinedResponse[]> {
  const url = new URL(baseUrl);
  const wire = requests
    .map((r) => {
      const length = r.body === undefined ? {} : { 'content-length': String(Buffer.byteLength(r.body)) };
      const headers = { host: url.host, ...r.headers, ...length };
      return `${r.method} ${r.path} HTTP/1.1\r\n${Object.entries(headers)
        .map(([name, value]) => `${name}: ${value}\r\n`)
        .join('')}\r\n${r.body ?? ''}`;
    })
    .join('');
  return new Promise((resolve, reject) => {
    const responses: PipelinedResponse[] = [];
    let buffered = Buffer.alloc(0);
    const socket = netConnect(Number(url.port), url.hostname, () => socket.write(wire));
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`pipelined: ${responses.length} of ${requests.length} responses within ${timeoutMs} ms`));
    }, timeoutMs);
    const fail = (err: Error) => {
      clearTimeout(timer);
      socket.destroy();
      reject(err);
    };
    socket.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      for (;;) {
        const headEnd = buffered.indexOf('\r\n\r\n');
        if (headEnd < 0) return;
        const [statusLine = '', ...lines] = buffered.subarray(0, headEnd).toString('latin1').split('\r\n');
        const headers: Record<string, string> = {};
        for (const line of lines) {
          const colon = line.indexOf(':');
          headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
        }
        const length = Number(headers['content-length']);
        if (!Number.isInteger(length))
          return fail(new Error(`pipelined: a response without Content-Length: ${statusLine}`));
        if (buffered.length < headEnd + 4 + length) return;
        const text = buffered.subarray(headEnd + 4, headEnd + 4 + length).toString('utf8');
        buffered = buffered.subarray(headEnd + 4 + length);
        responses.push({ status: Number(statusLine.split(' ')[1]), headers, text });
        if (responses.length === requests.length) {
          clearTimeout(timer);
          socket.end();
          return resolve(responses);
        }
      }
    });
    socket.on('error', fail);
    socket.on('close', () =>
      fail(new Error(`pipelined: the server closed after ${responses.length} of ${requests.length} responses`)),
    );
  });
}

/**
 * Writes `parts` on a fresh connection to `baseUrl`, then runs `then` (which may write more, or leave); resolves with
 * what the server sent: until it closed, 50 ms after the first answer's JSON body began, or after 2 s.
 */
export function socketExchange(
  baseUrl: string,
  parts: (string | Buffer)[],
  then: (socket: Socket) => Promise<void> | void,
): Promise<string> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const received: Buffer[] = [];
    const socket = netConnect(Number(url.port), url.hostname, () => {
      for (const part of parts) socket.write(part);
      void Promise.resolve(then(socket)).catch(reject);
    });
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(Buffer.concat(received).toString('utf8'));
    }, 2_000);
    socket.on('data', (chunk: Buffer) => {
      received.push(chunk);
      // One answer is all a test waits for.
      if (Buffer.concat(received).toString('utf8').includes('\r\n\r\n{')) {
        clearTimeout(timer);
        setTimeout(() => {
          socket.destroy();
          resolve(Buffer.concat(received).toString('utf8'));
        }, 50);
      }
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(received).toString('utf8'));
    });
  });
}

/** The first `request` log line for `path` among `logLines` from index `since`, waited for up to 2 s. */
export async function requestLogLine(
  logLines: readonly string[],
  path: string,
  since: number,
): Promise<Record<string, unknown> | undefined> {
  for (let i = 0; i < 100; i++) {
    const line = logLines
      .slice(since)
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l.msg === 'request' && l.path === path);
    if (line) return line;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return undefined;
}
