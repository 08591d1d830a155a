import type { JsMsg } from '@nats-io/jetstream';
import type { Logger } from '@inventario/platform';

/**
 * Keeps one pulled message ours for as long as this process holds it: from
 * the moment it is pulled (it may first wait for a free concurrency slot)
 * until it is acked, nak'ed or terminated. Every beat tells JetStream the
 * message is still being worked on (`+WPI`, restarting its ack_wait) and runs
 * the refreshers registered meanwhile (the sent-registry claim, which goes
 * stale when not refreshed within ack_wait).
 *
 * Why: a slow SMTP server or a long wait for a slot must not look like a dead
 * process. Without the beat, JetStream redelivers after ack_wait and the
 * same event is emailed twice.
 */
export interface MessageHeartbeat {
  /**
   * Runs `refresh` on every beat from now on (never two at once). The
   * returned function stops it and resolves once a refresh in progress has
   * finished, so nothing writes after the caller's next step.
   */
  alsoRefresh(refresh: () => Promise<void>): () => Promise<void>;
  /** Stops beating (idempotent); call once the message is acked, nak'ed or terminated. */
  stop(): void;
}

/** Beats per ack_wait: two beats can be lost before JetStream redelivers. */
export const BEATS_PER_ACK_WAIT = 3;

/** The beat interval for a consumer's ack_wait. */
export function heartbeatIntervalMs(ackWaitMs: number): number {
  return Math.max(1, Math.floor(ackWaitMs / BEATS_PER_ACK_WAIT));
}

export function startHeartbeat(msg: JsMsg, intervalMs: number, logger: Logger): MessageHeartbeat {
  const refreshers = new Set<{ refresh: () => Promise<void>; running?: Promise<void> }>();

  const beat = () => {
    try {
      msg.working();
    } catch (err) {
      // Only a closed connection throws here; the refresh below still counts.
      logger.warn({ streamSeq: msg.seq, err }, 'could not mark the message in progress');
    }
    for (const refresher of refreshers) {
      if (refresher.running) continue;
      refresher.running = refresher
        .refresh()
        .catch((err: unknown) => logger.warn({ streamSeq: msg.seq, err }, 'heartbeat refresh failed; tried again on the next beat'))
        .finally(() => {
          refresher.running = undefined;
        });
    }
  };
  const timer = setInterval(beat, intervalMs);
  // The NATS connection keeps the process alive; a forgotten beat must not.
  timer.unref();

  return {
    alsoRefresh(refresh) {
      const refresher: { refresh: () => Promise<void>; running?: Promise<void> } = { refresh };
      refreshers.add(refresher);
      return async () => {
        refreshers.delete(refresher);
        await refresher.running;
      };
    },
    stop() {
      clearInterval(timer);
      refreshers.clear();
    },
  };
}
