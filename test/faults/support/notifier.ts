/**
 * The notifier's stream and environment of `@inventario/testkit/notifier` for the fault tests (the built notifier
 * runs as a process), bound to the notifier's own names as its tests bind them
 * (services/notifier/test/support/test-notifier.ts).
 */
import type { EventType } from '@inventario/platform';
import { createTestEvents as createEventsNamed, type TestEvents } from '@inventario/testkit/notifier';
import { deadLetterStreamName } from '../../../services/notifier/src/events/dead-letter';
import { sentKeyFor } from '../../../services/notifier/src/events/sent-registry';
import { HANDLERS, type HandlerName } from '../../../services/notifier/src/handlers';

export { testEnv, type TestEvents } from '@inventario/testkit/notifier';

/** Events on `natsUrl` (the fault test's private server), under `namespace` (a fresh one by default). */
export const createTestEvents = (natsUrl?: string, namespace?: TestEvents['namespace']) =>
  createEventsNamed({ deadLetterStreamName, sentKeyFor }, natsUrl, namespace);

/** The notifier's consumer of `type`'s events. */
export const handlerFor = (type: EventType): HandlerName => HANDLERS.find((h) => h.eventType === type)!.name;
