import { LRUCache } from 'lru-cache';

/** The records the cache holds, by id. */
export type CachedKind = 'producto' | 'bodega';

/** What the cache needs of a record: its id and version (docs/contract.md §9.1). */
export interface Versioned {
  id: number;
  version: number;
}

/**
 * Taken before a miss reads the service, handed back with what it read:
 * the read is inserted only if nothing that could make it stale happened
 * in between (see ReadCache.fill).
 */
export interface FillTicket {
  readonly epoch: number;
  readonly seq: number;
}

/** Why entries were dropped, for bff_read_cache_invalidations_total. */
export type InvalidationCause = 'event' | 'write' | 'doubt' | 'conflict';

/** What the cache reports; metrics.ts turns it into Prometheus series. */
export interface ReadCacheObserver {
  hit(kind: CachedKind): void;
  miss(kind: CachedKind): void;
  invalidated(cause: InvalidationCause, count: number): void;
  bypassChanged(bypassed: boolean): void;
}

export interface ReadCacheOptions {
  maxEntries: number;
  /** Safety bound on any entry's life, whatever the events say. */
  ttlMs: number;
  /**
   * How many recently touched keys are remembered; older touches leave only a watermark. Default 4 x maxEntries, at
   * least 1024.
   */
  maxTouched?: number;
  observer?: ReadCacheObserver;
}

/** What a touch says about the record: the version it reached, and whether it is gone. */
export interface Touch {
  version?: number;
  deleted?: boolean;
}

interface Entry {
  record: Versioned;
  /** The ticket sequence of the fill that inserted it (orders two fills of one version). */
  seq: number;
}

interface TouchMark {
  seq: number;
  version: number;
  deleted: boolean;
}

/**
 * A bounded in-memory cache of products and warehouses by id, coherent by
 * these rules (docs/contract.md §11, docs/decisions.md "Read cache"):
 *
 * - While bypassed (at start, and from the first doubt about the event
 *   stream until a new subscription is confirmed) it answers nothing,
 *   issues no tickets and inserts nothing.
 * - Every change it hears of (an event, a write through this replica, an
 *   entry leaving the LRU) "touches" the record: its entry is dropped and
 *   the key is remembered with a fresh sequence number. A fill whose ticket
 *   is older than the key's last touch is refused; when the key's touch was
 *   forgotten (the touched map is bounded), fills older than the highest
 *   forgotten sequence are refused.
 * - Entering bypass empties the cache and bumps the epoch: fills that began
 *   before are refused. Leaving it bumps the epoch again.
 * - An older version never replaces a newer one; two fills of one version
 *   that disagree (a warehouse's `ocupacion` moves without a new version)
 *   drop the entry instead of choosing; a deleted record is never inserted
 *   again (tombstone).
 * - A refused fill touches the record too: a read that began earlier may
 *   have read the database later, so what it returns can be newer than
 *   what a fill in flight holds; no fill older than its answer may insert.
 */
export class ReadCache {
  private readonly entries: LRUCache<string, Entry>;
  private readonly touched = new Map<string, TouchMark>();
  private readonly maxTouched: number;
  private readonly observer?: ReadCacheObserver;
  /** Fills with a ticket below this may have missed a forgotten touch. */
  private watermark = 0;
  private seq = 0;
  private currentEpoch = 0;
  private bypassing = true;

  constructor(options: ReadCacheOptions) {
    this.observer = options.observer;
    this.maxTouched = options.maxTouched ?? Math.max(1024, options.maxEntries * 4);
    this.entries = new LRUCache<string, Entry>({
      max: options.maxEntries,
      ttl: options.ttlMs,
      // An entry that leaves by size or age counts as touched: a fill that began before it
      // was inserted (and read an older state) must not bring that older state back.
      dispose: (_entry, key, reason) => {
        if (reason === 'evict' || reason === 'expire') this.mark(key, {});
      },
    });
  }

  /** True while every read must go to the service. */
  get bypassed(): boolean {
    return this.bypassing;
  }

  get epoch(): number {
    return this.currentEpoch;
  }

  get size(): number {
    return this.entries.size;
  }

  /** The cached record, or undefined (a miss, or bypassed). Counts hits and misses. */
  get<T extends Versioned>(kind: CachedKind, id: number): T | undefined {
    if (this.bypassing) return undefined;
    const entry = this.entries.get(key(kind, id));
    if (entry) this.observer?.hit(kind);
    else this.observer?.miss(kind);
    return entry?.record as T | undefined;
  }

  /** A ticket for a read about to go to the service; undefined while bypassed (the read is then not inserted). */
  ticket(): FillTicket | undefined {
    return this.bypassing ? undefined : { epoch: this.currentEpoch, seq: this.seq };
  }

  /**
   * Inserts what a read returned under `ticket`, unless the epoch moved,
   * the record was touched since the ticket (or may have been: watermark),
   * it is gone, or a newer version is held. Returns whether it was inserted.
   */
  fill(kind: CachedKind, record: Versioned, ticket: FillTicket | undefined): boolean {
    const k = key(kind, record.id);
    const held = this.entries.peek(k);
    const mark = this.touched.get(k);
    // Already known to be older than what is held or was announced, or deleted: those stay the floor.
    if ((held && held.record.version > record.version) || (mark && (mark.deleted || record.version < mark.version)))
      return false;
    if (!this.vouchedFor(kind, record, ticket, mark)) {
      // What this read returns may be NEWER than what a fill still in flight (with a later
      // ticket but an earlier read of the database) would insert: once this read is answered,
      // no fill begun before now may insert, and nothing held may stay (monotonic reads).
      this.touch(kind, record.id, 'conflict');
      return false;
    }
    if (held && held.record.version === record.version) {
      // Same version, read at different moments (a warehouse's ocupacion moves without one): if
      // they differ, neither can be vouched for, nor can a fill in flight that read either.
      if (!sameRecord(held.record, record)) this.touch(kind, record.id, 'conflict');
      return false;
    }
    this.entries.set(k, { record: Object.freeze(record), seq: ticket!.seq });
    return true;
  }

  /** Nothing that could make `record` stale happened since `ticket` (see the class comment). */
  private vouchedFor(
    kind: CachedKind,
    record: Versioned,
    ticket: FillTicket | undefined,
    mark: TouchMark | undefined,
  ): boolean {
    if (!ticket || this.bypassing || ticket.epoch !== this.currentEpoch || ticket.seq < this.watermark) return false;
    if (mark && mark.seq > ticket.seq) return false;
    // A product read before its warehouse was unassigned or deleted may still name it.
    const bodegaId = kind === 'producto' ? (record as { bodegaId?: number | null }).bodegaId : null;
    return typeof bodegaId !== 'number' || (this.touched.get(key('bodega', bodegaId))?.seq ?? 0) <= ticket.seq;
  }

  /** A change of the record: drops its entry and refuses fills that began before now. */
  touch(kind: CachedKind, id: number, cause: InvalidationCause, change: Touch = {}): void {
    const k = key(kind, id);
    if (this.entries.delete(k)) this.observer?.invalidated(cause, 1);
    this.mark(k, change);
  }

  /** Drops (and touches) every cached product whose bodegaId is `bodegaId`: its warehouse was deleted. */
  touchProductosOf(bodegaId: number, cause: InvalidationCause): void {
    for (const [k, entry] of this.entries.entries()) {
      if (k.startsWith('p') && (entry.record as { bodegaId?: number | null }).bodegaId === bodegaId)
        this.touch('producto', entry.record.id, cause);
    }
  }

  /**
   * Drops every cached record of `kind` and refuses every fill in flight, without bypassing: a write
   * whose reach within that kind is unknown (the others stay cached).
   */
  invalidateKind(kind: CachedKind, cause: InvalidationCause): void {
    const prefix = key(kind, 0).slice(0, 1);
    let count = 0;
    for (const k of [...this.entries.keys()]) {
      if (k.startsWith(prefix) && this.entries.delete(k)) count++;
    }
    this.currentEpoch++;
    if (count > 0) this.observer?.invalidated(cause, count);
  }

  /** Empties the cache and refuses every fill in flight, without bypassing (a write whose reach is unknown). */
  invalidateAll(cause: InvalidationCause): void {
    const count = this.entries.size;
    this.entries.clear();
    this.currentEpoch++;
    if (count > 0) this.observer?.invalidated(cause, count);
  }

  /**
   * A doubt about the event stream: every read goes to the service from now on, the cache is emptied, fills in flight
   * are refused.
   */
  bypass(): void {
    this.invalidateAll('doubt');
    if (!this.bypassing) {
      this.bypassing = true;
      this.observer?.bypassChanged(true);
    }
  }

  /**
   * Leaves bypass once a new subscription is confirmed, if no doubt came
   * since `epoch` was read (the follower reads it, bypassed and emptied,
   * before it creates the subscription). Returns whether it resumed.
   */
  resume(epoch: number): boolean {
    if (!this.bypassing || epoch !== this.currentEpoch) return false;
    this.entries.clear();
    this.currentEpoch++;
    this.bypassing = false;
    this.observer?.bypassChanged(false);
    return true;
  }

  private mark(k: string, change: Touch): void {
    const previous = this.touched.get(k);
    this.touched.delete(k);
    this.touched.set(k, {
      seq: ++this.seq,
      version: Math.max(change.version ?? 0, previous?.version ?? 0),
      deleted: (change.deleted ?? false) || (previous?.deleted ?? false),
    });
    // Map order is insertion order, and every mark re-inserts: the first key is the oldest touch.
    while (this.touched.size > this.maxTouched) {
      const [oldest, forgotten] = this.touched.entries().next().value as [string, TouchMark];
      this.touched.delete(oldest);
      this.watermark = Math.max(this.watermark, forgotten.seq);
    }
  }
}

function key(kind: CachedKind, id: number): string {
  return `${kind === 'producto' ? 'p' : 'b'}${id}`;
}

/** Two reads of one version agree: every field alike (a warehouse's `ocupacion` moves without a version). */
function sameRecord(a: Versioned, b: Versioned): boolean {
  const x = a as unknown as Record<string, unknown>;
  const y = b as unknown as Record<string, unknown>;
  const keys = Object.keys(x);
  return keys.length === Object.keys(y).length && keys.every((k) => x[k] === y[k]);
}
