import type { ResponseHeaders } from './load';

/** The version in a strong ETag of ours, `"12"`; NaN for anything else. */
export function versionOfEtag(etag: string | string[] | undefined): number {
  const value = Array.isArray(etag) ? etag[0] : etag;
  const match = /^"(\d+)"$/.exec(value?.trim() ?? '');
  return match ? Number(match[1]) : Number.NaN;
}

/** A header of an answer by name, whatever case the server sent it in. */
export function headerOf(headers: ResponseHeaders, name: string): string | string[] | undefined {
  const wanted = name.toLowerCase();
  const found = Object.keys(headers).find((key) => key.toLowerCase() === wanted);
  return found === undefined ? undefined : headers[found];
}

/**
 * The products the PUT targets update. A request takes a product no other
 * request in flight holds and hands it back with its answer, so concurrent
 * PUTs never touch the same row (no row-lock waits) and a conditional PUT
 * never races another one on its version (no 412): in effect each
 * connection updates its own product. With twice as many products as
 * connections a request always finds one free, even if a timed-out request
 * never hands its product back.
 *
 * It keeps each product's version from the ETag of its last answer, so the
 * next If-Match names the current version; `reset` reads them afresh
 * before each window (a PUT still in flight when a window ended may have
 * committed after its answer was no longer read).
 */
export class UpdatePool {
  private free: number[];
  private readonly versions = new Map<number, number>();

  constructor(private readonly ids: readonly number[]) {
    if (ids.length === 0) throw new Error('UpdatePool needs at least one product');
    this.free = [...ids];
  }

  /** Every product free again; with `readVersion`, each one's version read afresh. */
  async reset(readVersion?: (id: number) => Promise<number>): Promise<void> {
    this.free = [...this.ids];
    if (!readVersion) return;
    for (const id of this.ids) this.versions.set(id, await readVersion(id));
  }

  /**
   * A product no request in flight holds (the first one if all are held: its request may then fail, and count as an
   * error).
   */
  take(): number {
    return this.free.shift() ?? (this.ids[0] as number);
  }

  /** The If-Match value for `id`: the ETag of its last known version. */
  ifMatch(id: number): string {
    return `"${this.versions.get(id) ?? 0}"`;
  }

  /**
   * Hands `id` back with its answer: a 2xx carries the new ETag; a 412
   * carries `versionActual`, kept so one failure does not make every later
   * request on that product fail too (the window still counts the error).
   */
  give(id: number, status: number, body: string, headers: ResponseHeaders): void {
    let version = Number.NaN;
    if (status >= 200 && status <= 299) version = versionOfEtag(headerOf(headers, 'etag'));
    else if (status === 412) {
      try {
        version = Number((JSON.parse(body) as { versionActual?: unknown }).versionActual);
      } catch {
        // not the 412 body we know: the version stays, reset reads it before the next window
      }
    }
    if (Number.isInteger(version) && version > 0) this.versions.set(id, version);
    if (this.ids.includes(id) && !this.free.includes(id)) this.free.push(id);
  }
}
