/** One JSON request to the BFF from the harness (seeding, paced writes), with its timing. */
export interface JsonResponse {
  status: number;
  body: unknown;
}

/** The `id` of a created record's answer (both POST routes put it at the top level). */
export function idOf(body: unknown): number {
  return Number((body as { id?: unknown } | undefined)?.id);
}

export async function requestJson(
  baseUrl: string,
  auth: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<JsonResponse> {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { authorization: auth, ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text === '' ? undefined : (JSON.parse(text) as unknown) };
}

/** Runs `work` for every item with at most `concurrency` in flight. */
export async function forEachLimited<T>(
  items: readonly T[],
  concurrency: number,
  work: (item: T, index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  const workers = Array.from({ length: Math.min(concurrency, items.length) }, async () => {
    while (next < items.length) {
      const index = next++;
      await work(items[index] as T, index);
    }
  });
  await Promise.all(workers);
}
