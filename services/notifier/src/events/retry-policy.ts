/**
 * How often and how patiently a failed email is retried. JetStream counts
 * deliveries (max_deliver); the delay between them is ours, given with each
 * nak, because a consumer-level BackOff would also replace ack_wait with its
 * first, short step and redeliver emails still being sent.
 */
export interface RetryPolicy {
  /** Deliveries of one message before it is dead-lettered (NOTIFIER_MAX_DELIVER). */
  maxDeliver: number;
  /** Nak delay after the 1st, 2nd, ... failed delivery; the last one repeats (NOTIFIER_BACKOFF_MS). */
  backoffMs: readonly number[];
}

/** The delay before delivery `deliveryCount + 1`. */
export function retryDelayMs(policy: RetryPolicy, deliveryCount: number): number {
  const steps = policy.backoffMs;
  return steps[Math.min(Math.max(deliveryCount, 1), steps.length) - 1] ?? 1000;
}

/** Whether JetStream will not deliver this message again after this delivery. */
export function isLastDelivery(policy: RetryPolicy, deliveryCount: number): boolean {
  return deliveryCount >= policy.maxDeliver;
}
