/** FIFO semaphore shared by the consumers, so NOTIFIER_CONCURRENCY bounds emails in flight overall. */
export interface ConcurrencyLimit {
  acquire(): Promise<() => void>;
  readonly active: number;
}

export function createConcurrencyLimit(max: number): ConcurrencyLimit {
  if (!Number.isInteger(max) || max < 1) throw new RangeError(`concurrency must be a positive integer, got ${max}`);
  let active = 0;
  const waiting: Array<() => void> = [];

  const release = () => {
    const next = waiting.shift();
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
