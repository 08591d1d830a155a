/**
 * One HTTP request to a BFF as a test sends it (Basic auth by default, JSON
 * in and out), for the in-process stacks of the BFF's tests and the process
 * stacks of the fault and system tests alike.
 */

/** The `Authorization` value for a user and password. */
export function basicAuth(usuario: string, password: string): string {
  return `Basic ${Buffer.from(`${usuario}:${password}`, 'utf8').toString('base64')}`;
}

export interface StackRequestOptions {
  /** Sent as JSON (`Content-Type: application/json`). */
  body?: unknown;
  /** Sent as is; set the content type in `headers` (default application/json). */
  rawBody?: string | Uint8Array;
  headers?: Record<string, string>;
  /** Another Authorization value, or false to send none; default the test user's. */
  auth?: string | false;
}

export interface StackResponse {
  status: number;
  headers: Headers;
  /** The parsed JSON body, or undefined when the body is empty or not JSON. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON bodies
  body: any;
  text: string;
}

/** One HTTP request to `baseUrl`, answered with its status, headers and (JSON) body. */
export async function httpRequest(
  baseUrl: string,
  defaultAuth: string,
  method: string,
  path: string,
  options: StackRequestOptions,
): Promise<StackResponse> {
  const headers: Record<string, string> = {};
  const auth = options.auth ?? defaultAuth;
  if (auth !== false) headers.authorization = auth;
  let body: string | Uint8Array | undefined;
  if (options.rawBody !== undefined) {
    body = options.rawBody;
    headers['content-type'] = 'application/json';
  } else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] = 'application/json';
  }
  for (const [name, value] of Object.entries(options.headers ?? {})) headers[name.toLowerCase()] = value;
  const response = await fetch(`${baseUrl}${path}`, { method, headers, body });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: response.status, headers: response.headers, body: parsed, text };
}
