import type { JsMsg } from '@nats-io/jetstream';
import type { Logger } from '@inventario/platform';

/**
 * Holds a pulled message from pull to ack (`+WPI` each beat) and refreshes
 * the sent-registry claim: a slow SMTP server or a long wait for a slot must
 * not look like a dead process, or JetStream redelivers and the event is emailed twice.
 */
export interface MessageHeartbeat {
  /** The returned stop resolves once a refresh in progress finished, so nothing writes after the caller's next step. */
  alsoRefresh(refresh: () => Promise<void>): () => Promise<void>;
  /** Idempotent. */
  stop(): void;
}

/** Two beats can be lost before JetStream redelivers. */
export const BEATS_PER_ACK_WAIT = 3;

export function heartbeatIntervalMs(ackWaitMs: number): number {
  return Math.max(1, Math.floor(ackWaitMs / BEATS_PER_ACK_WAIT));
}

export function startHeartbeat(msg: JsMsg, intervalMs: number, logger: Logger): MessageHeartbeat {
  const refreshers = new Set<{ refresh: () => Promise<void>; running?: Promise<void> }>();

  const beat = () => {
    try {
      msg.working();
    } catch (err) {
      logger.warn({ streamSeq: msg.seq, err }, 'could not mark the message in progress');
    }
    for (const refresher of refreshers) {
      if (refresher.running) continue;
      refresher.running = refresher
        .refresh()
        .catch((err: unknown) =>
          logger.warn({ streamSeq: msg.seq, err }, 'heartbeat refresh failed; tried again on the next beat'),
        )
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
