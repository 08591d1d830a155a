import { withDbErrors, type Knex } from './db';

/**
 * Runs `work` in one transaction and, only once it has committed, calls
 * `onCommitted`: stores pass the outbox relay's wake-up, so the events
 * committed with a write are published at once rather than at the relay's
 * next poll. A rolled-back transaction notifies nobody. Transient driver
 * failures surface as UnavailableError (withDbErrors).
 */
export async function writeTransaction<T>(
  db: Knex,
  work: (trx: Knex.Transaction) => Promise<T>,
  onCommitted?: () => void,
): Promise<T> {
  const result = await withDbErrors(() => db.transaction(work));
  onCommitted?.();
  return result;
}
