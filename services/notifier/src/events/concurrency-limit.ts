/**
 * A counting semaphore: at most `max` holders at once, waiters served in
 * arrival order. The event consumers share one, so NOTIFIER_CONCURRENCY
 * bounds the emails in flight overall (and matches the SMTP pool's size).
 */
export interface ConcurrencyLimit {
  /** Resolves with the release function once a slot is free. */
  acquire(): Promise<() => void>;
  /** Slots in use. */
  readonly active: number;
}

export function createConcurrencyLimit(max: number): ConcurrencyLimit {
  if (!Number.isInteger(max) || max < 1) throw new RangeError(`concurrency must be a positive integer, got ${max}`);
  let active = 0;
  const waiting: Array<() => void> = [];

  const release = () => {
    const next = waiting.shift();
    // The slot passes straight to the next waiter, so `active` stays put.
    if (next) next();
    else active--;
  };
  const once = () => {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      release();
    };
  };

  return {
    acquire() {
      if (active < max) {
        active++;
        return Promise.resolve(once());
      }
      return new Promise((resolve) => waiting.push(() => resolve(once())));
    },
    get active() {
      return active;
    },
  };
}
