import { waitFor } from '@inventario/testkit';
import { DEAD_LETTER_HEADERS } from '../src/events/dead-letter';
import { counterValue } from '../src/metrics';
import { sampleEnvelope } from '../src/sample-events';
import { startTestNotifier, type TestNotifier } from './support/test-notifier';

// What the notifier does when the SMTP server refuses or is not there:
// a transient failure is retried with backoff, a permanent one is
// dead-lettered at once, and retries end in a dead letter too.

describe('an SMTP server that rejects messages', () => {
  let t: TestNotifier;

  beforeAll(async () => {
    t = await startTestNotifier({ NOTIFIER_MAX_DELIVER: '3', NOTIFIER_BACKOFF_MS: '200,400' });
  });

  afterAll(async () => {
    await t?.close();
  });

  afterEach(() => t.sink.setMode({ accept: true }));

  it('dead-letters an event the server rejects with a 5xx after exactly one attempt, and goes on with the next', async () => {
    t.sink.setMode({ accept: false, code: 550, message: 'Buzón inexistente' });
    const rejected = sampleEnvelope('ProductoCreado', { id: 1 });
    const seq = await t.events.publish('ProductoCreado', rejected);
    await t.events.processedThrough('ProductoCreatedHandler', seq);

    const letters = await t.events.deadLetters();
    expect(letters).toHaveLength(1);
    expect(letters[0]?.subject).toBe(`${t.events.namespace.prefix}_dlq.producto.creado`);
    expect(letters[0]?.body).toBe(JSON.stringify(rejected));
    expect(letters[0]?.headers[DEAD_LETTER_HEADERS.reason]).toMatch(/550.*Buzón inexistente/);
    expect(letters[0]?.headers[DEAD_LETTER_HEADERS.eventId]).toBe(rejected.id);
    expect(letters[0]?.headers[DEAD_LETTER_HEADERS.deliveryCount]).toBe('1');

    // A later event of the same type is emailed: the rejected one was not retried meanwhile.
    t.sink.setMode({ accept: true });
    const next = sampleEnvelope('ProductoCreado', { id: 2 });
    await t.events.processedThrough('ProductoCreatedHandler', await t.events.publish('ProductoCreado', next));
    expect(t.sink.received.map((e) => e.headers.get('x-inventario-event-id'))).toEqual([next.id]);
    expect(t.sink.attempts).toBe(2);
    expect(await counterValue(t.app.metrics.deadLettered, 'ProductoCreado')).toBe(1);
    expect(await counterValue(t.app.metrics.retried, 'ProductoCreado')).toBe(0);
    expect(await counterValue(t.app.metrics.sent, 'ProductoCreado')).toBe(1);
    expect(await t.events.sentEntry(rejected.id)).toBeUndefined();
  });

  it('retries an event the server answers with a 4xx, waiting the backoff delays between attempts, and dead-letters it after the last delivery', async () => {
    t.sink.setMode({ accept: false, code: 451, message: 'Inténtelo más tarde' });
    const attemptsBefore = t.sink.attempts;
    const emailsBefore = t.sink.received.length;
    const lettersBefore = (await t.events.deadLetters()).length;
    const envelope = sampleEnvelope('BodegaCreada');
    const seq = await t.events.publish('BodegaCreada', envelope);
    await t.events.processedThrough('BodegaCreatedHandler', seq);

    expect(t.sink.attempts - attemptsBefore).toBe(3); // NOTIFIER_MAX_DELIVER
    // NOTIFIER_BACKOFF_MS=200,400: each retry waited at least its delay
    // (measured from the end of the failed attempt, before the nak was even sent).
    const [first, second, third] = t.sink.attemptTimes.slice(attemptsBefore);
    expect(second! - first!).toBeGreaterThanOrEqual(200);
    expect(third! - second!).toBeGreaterThanOrEqual(400);
    const letters = (await t.events.deadLetters()).slice(lettersBefore);
    expect(letters).toHaveLength(1);
    expect(letters[0]?.subject).toBe(`${t.events.namespace.prefix}_dlq.bodega.creada`);
    expect(letters[0]?.headers[DEAD_LETTER_HEADERS.reason]).toMatch(/451.*still failing after 3 deliveries/);
    expect(letters[0]?.headers[DEAD_LETTER_HEADERS.deliveryCount]).toBe('3');
    expect(await counterValue(t.app.metrics.retried, 'BodegaCreada')).toBe(2);
    expect(await counterValue(t.app.metrics.deadLettered, 'BodegaCreada')).toBe(1);
    expect(t.sink.received.length - emailsBefore).toBe(0);
  });
});

describe('an SMTP server that goes down and comes back', () => {
  let t: TestNotifier;

  beforeAll(async () => {
    t = await startTestNotifier({ NOTIFIER_MAX_DELIVER: '100', NOTIFIER_BACKOFF_MS: '300' });
  });

  afterAll(async () => {
    await t?.close();
  });

  it('keeps retrying while the server is down and sends the email exactly once when it is back, with no dead letter', async () => {
    // Warm the pool first, so the outage also cuts open pooled connections.
    const before = sampleEnvelope('BodegaActualizada', { id: 1 });
    await t.events.publish('BodegaActualizada', before);
    await t.sink.waitForEmails(1);

    await t.sink.stop();
    const envelope = sampleEnvelope('BodegaActualizada', { id: 2 });
    const seq = await t.events.publish('BodegaActualizada', envelope);
    await waitFor(
      async () => (await counterValue(t.app.metrics.retried, 'BodegaActualizada')) >= 2,
      'two failed attempts while SMTP is down',
      30_000,
    );
    expect(t.sink.received).toHaveLength(1);

    await t.sink.start();
    await t.events.processedThrough('BodegaUpdatedHandler', seq);
    expect(t.sink.received.map((e) => e.headers.get('x-inventario-event-id'))).toEqual([before.id, envelope.id]);
    expect(await t.events.deadLetters()).toEqual([]);
    expect(await counterValue(t.app.metrics.deadLettered, 'BodegaActualizada')).toBe(0);
    expect(await t.events.sentEntry(envelope.id)).toMatchObject({ state: 'sent' });
  });
});
