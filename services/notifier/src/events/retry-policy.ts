/** Delays go with each nak: a consumer-level BackOff would replace ack_wait and redeliver emails still being sent. */
export interface RetryPolicy {
  maxDeliver: number;
  /** After the 1st, 2nd, ... failed delivery; the last one repeats. */
  backoffMs: readonly number[];
}

export function retryDelayMs(policy: RetryPolicy, deliveryCount: number): number {
  const steps = policy.backoffMs;
  return steps[Math.min(Math.max(deliveryCount, 1), steps.length) - 1] ?? 1000;
}

export function isLastDelivery(policy: RetryPolicy, deliveryCount: number): boolean {
  return deliveryCount >= policy.maxDeliver;
}
