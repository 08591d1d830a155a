import { AckPolicy, DeliverPolicy, jetstreamManager } from '@nats-io/jetstream';
import { nanos } from '@nats-io/transport-node';
import { createLogger, eventSubject } from '@inventario/platform';
import { startApp } from '../src/app';
import { DEAD_LETTER_HEADERS } from '../src/events/dead-letter';
import { MAX_DELIVERIES_CONSUMER, maxDeliveriesSubjects } from '../src/events/max-deliveries';
import { HANDLERS } from '../src/handlers';
import { counterValue } from '../src/metrics';
import { waitFor } from '@inventario/testkit';
import { sampleEnvelope } from '../src/sample-events';
import { handlerFor, RECIPIENT, SENDER, startTestNotifier, type TestNotifier } from './support/test-notifier';
import { SPEC_SUBJECTS } from './support/spec-subjects';

// The notifier in-process against the real NATS and a real SMTP server:
// every event type becomes one email, invalid events become dead letters.

let t: TestNotifier;

beforeAll(async () => {
  t = await startTestNotifier();
});

afterAll(async () => {
  await t?.close();
});

/** Waits for the email of one event id and returns it. */
function emailFor(eventId: string) {
  return waitFor(
    () => t.sink.received.find((e) => e.headers.get('x-inventario-event-id') === eventId),
    `the email of event ${eventId}`,
    30_000,
  );
}

function emailsOf(eventId: string) {
  return t.sink.received.filter((e) => e.headers.get('x-inventario-event-id') === eventId);
}

describe('notifier emails', () => {
  it("emails each emailed event type once, from SENDER_EMAIL to RECIPIENT_EMAIL, with the contract's title and the record's name as subject, the record's id and name (a stock level by ids when its names cannot be looked up) and the date", async () => {
    const at = new Date('2026-11-22T14:03:07Z');
    const published = [];
    for (const [i, { eventType: type }] of HANDLERS.entries()) {
      const envelope = sampleEnvelope(type, { at, id: 700 + i, nombre: `Registro ${type} ñandú` });
      published.push({ type, id: 700 + i, envelope, seq: await t.events.publish(type, envelope) });
    }

    for (const { type, id, envelope, seq } of published) {
      const email = await emailFor(envelope.id);
      // The contract's title, then the record by name (a stock level, whose names no service here can give: by ids).
      expect(email.subject).toBe(
        `${SPEC_SUBJECTS[type]}: ${type === 'StockBajo' ? `producto ${id} en bodega 3` : `Registro ${type} ñandú`}`,
      );
      expect(email.from).toBe(SENDER);
      expect(email.to).toEqual([RECIPIENT]);
      expect(email.messageId).toBe(`<${envelope.id}@inventario>`);
      for (const part of [email.html, email.text]) {
        expect(part).toContain(SPEC_SUBJECTS[type]);
        expect(part).toContain(String(id));
        if (type !== 'StockBajo') expect(part).toContain(`Registro ${type} ñandú`);
        expect(part).toContain('22 de noviembre de 2026, 14:03:07 UTC');
      }
      expect(email.html).toMatch(/^<!DOCTYPE html>/);
      expect(email.html).toContain(`<h1 style="margin:0 0 16px;font-size:22px;">${SPEC_SUBJECTS[type]}</h1>`);
      await t.events.processedThrough(handlerFor(type), seq);
    }

    for (const { type, envelope } of published) {
      expect(emailsOf(envelope.id)).toHaveLength(1);
      expect(await counterValue(t.app.metrics.sent, type)).toBeGreaterThanOrEqual(1);
    }
  });

  it('shows the fields of the record: price, stock and warehouse of a product, location and capacity of a warehouse', async () => {
    const producto = sampleEnvelope('ProductoActualizado', { id: 41 });
    const bodega = sampleEnvelope('BodegaCreada', { id: 42 });
    await t.events.publish('ProductoActualizado', producto);
    await t.events.publish('BodegaCreada', bodega);

    const productoEmail = await emailFor(producto.id);
    expect(productoEmail.text).toContain('Precio: 1234.50');
    // The update changed the stock: the email says so and marks that row.
    expect(productoEmail.text).toContain('Campos modificados: Cantidad en stock');
    expect(productoEmail.text).toContain('Cantidad en stock [modificado]: 480');
    expect(productoEmail.text).toContain('Descripción: Caja de 100 unidades');
    expect(productoEmail.text).toContain('Así queda ahora');
    const bodegaEmail = await emailFor(bodega.id);
    expect(bodegaEmail.text).toContain('Ubicación: Calle de Alcalá 45, Madrid');
    expect(bodegaEmail.text).toContain('Capacidad: 1000');
  });

  it('escapes HTML: a product named <script>alert(1)</script> arrives as text, never as a tag', async () => {
    const envelope = sampleEnvelope('ProductoCreado', {
      nombre: '<script>alert(1)</script>',
      usuario: '<b onmouseover="x">eva</b>',
    });
    await t.events.publish('ProductoCreado', envelope);

    const email = await emailFor(envelope.id);
    expect(email.html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(email.html).not.toContain('<script');
    expect(email.html).toContain('&lt;b onmouseover&#x3D;&quot;x&quot;&gt;eva&lt;/b&gt;');
    expect(email.html).not.toContain('<b ');
    // The plain text part is text: it shows the name as typed.
    expect(email.text).toContain('Nombre: <script>alert(1)</script>');
  });

  it('emails a product whose descripcion is as long as the service stores (20 000 characters), with no dead letter', async () => {
    const before = (await t.events.deadLetters()).length;
    const envelope = sampleEnvelope('ProductoCreado', { id: 55 });
    const descripcion = 'Ficha técnica. '.repeat(1334).slice(0, 20_000);
    const seq = await t.events.publish(
      'ProductoCreado',
      JSON.stringify({ ...envelope, data: { ...envelope.data, descripcion } }),
    );

    const email = await emailFor(envelope.id);
    expect(email.text).toContain('Ficha técnica.');
    await t.events.processedThrough('ProductoCreatedHandler', seq);
    expect((await t.events.deadLetters()).length - before).toBe(0);
  });

  it('sends one email for an event id published twice in separate stream messages', async () => {
    const envelope = sampleEnvelope('BodegaActualizada', { id: 77 });
    const payload = JSON.stringify(envelope);
    await t.events.publish('BodegaActualizada', payload);
    const second = await t.events.publish('BodegaActualizada', payload);

    await emailFor(envelope.id);
    await t.events.processedThrough('BodegaUpdatedHandler', second);
    expect(emailsOf(envelope.id)).toHaveLength(1);
    expect(await t.events.sentEntry(envelope.id)).toMatchObject({
      state: 'sent',
      messageId: `<${envelope.id}@inventario>`,
    });
  });
});

describe('invalid events', () => {
  it('dead-letters an unparsable message with its reason and origin, and keeps emailing the next events', async () => {
    const before = (await t.events.deadLetters()).length;
    const garbageSeq = await t.events.publish('ProductoEliminado', 'esto no es JSON');
    const next = sampleEnvelope('ProductoEliminado', { id: 90 });
    await t.events.publish('ProductoEliminado', next);

    await emailFor(next.id);
    const letters = (await t.events.deadLetters()).slice(before);
    expect(letters).toHaveLength(1);
    expect(letters[0]).toMatchObject({
      subject: `${t.events.namespace.prefix}_dlq.producto.eliminado`,
      body: 'esto no es JSON',
      headers: {
        [DEAD_LETTER_HEADERS.reason]: 'unparsable event: payload is not JSON',
        [DEAD_LETTER_HEADERS.consumer]: 'ProductoDeletedHandler',
        [DEAD_LETTER_HEADERS.originalSubject]: eventSubject(t.events.namespace.prefix, 'ProductoEliminado'),
        [DEAD_LETTER_HEADERS.originalStream]: t.events.namespace.stream,
        [DEAD_LETTER_HEADERS.originalSequence]: String(garbageSeq),
        [DEAD_LETTER_HEADERS.deliveryCount]: '1',
      },
    });
    expect(await counterValue(t.app.metrics.deadLettered, 'ProductoEliminado')).toBe(1);
  });

  it.each([
    [
      'an event of another type on this subject',
      sampleEnvelope('BodegaCreada'),
      /eventType is not Service\.Inventario\.ProductoCreado/,
    ],
    [
      'an event claiming another producer',
      { ...sampleEnvelope('ProductoCreado'), source: 'bodega-svc' },
      /source is not producto-svc/,
    ],
    [
      'an event naming no producer',
      { ...sampleEnvelope('ProductoCreado'), source: undefined },
      /source is not producto-svc/,
    ],
    [
      'a product without productoId',
      { ...sampleEnvelope('ProductoCreado'), data: { nombre: 'Sin id' } },
      /data\.productoId/,
    ],
    ['an event without a valid eventTime', { ...sampleEnvelope('ProductoCreado'), eventTime: 'ayer' }, /eventTime/],
    [
      'a major version the notifier does not read',
      { ...sampleEnvelope('ProductoCreado'), dataVersion: '2.0' },
      /dataVersion/,
    ],
  ])('dead-letters %s, naming the problem, without sending', async (_case, body, reason) => {
    const before = (await t.events.deadLetters()).length;
    const emailsBefore = t.sink.received.length;
    const seq = await t.events.publish('ProductoCreado', JSON.stringify(body));

    await t.events.processedThrough('ProductoCreatedHandler', seq);
    const letters = (await t.events.deadLetters()).slice(before);
    expect(letters).toHaveLength(1);
    expect(letters[0]?.headers[DEAD_LETTER_HEADERS.reason]).toMatch(reason);
    expect(t.sink.received.length).toBe(emailsBefore);
  });
});

describe('durable consumers', () => {
  it('are durable explicit-ack consumers named after their handlers, one per emailed event subject, and no others', async () => {
    const jsm = await jetstreamManager(t.events.nc);
    const names: string[] = [];
    for await (const info of jsm.consumers.list(t.events.namespace.stream)) names.push(info.name);
    expect(names.sort()).toEqual([...HANDLERS.map((h) => h.name), MAX_DELIVERIES_CONSUMER].sort());
    expect(HANDLERS.map((h) => h.name)).toContain('StockBajoHandler');
    for (const handler of HANDLERS) {
      const { config } = await t.events.consumerInfo(handler.name);
      expect(config).toMatchObject({
        durable_name: handler.name,
        filter_subject: eventSubject(t.events.namespace.prefix, handler.eventType),
        ack_policy: AckPolicy.Explicit,
        max_deliver: t.config.maxDeliver,
        ack_wait: nanos(t.config.ackWaitMs),
        deliver_policy: DeliverPolicy.All,
      });
    }
  });

  it("created the stream, capturing <prefix>.> (dead letters included) and the event consumers' max-deliveries advisories, as no service had, with the default limits", async () => {
    const info = await (await jetstreamManager(t.events.nc)).streams.info(t.events.namespace.stream);
    expect(info.config.subjects).toEqual([
      `${t.events.namespace.prefix}.>`,
      ...maxDeliveriesSubjects(t.events.namespace.stream, HANDLERS),
    ]);
    // NATS_STREAM_MAX_AGE_HOURS=720, NATS_STREAM_MAX_BYTES=512 MiB.
    expect(info.config).toMatchObject({ max_age: nanos(720 * 3600_000), max_bytes: 512 * 1024 * 1024 });
  });

  it('reads the captured advisories with one more durable consumer, which never gives up on one', async () => {
    const { config } = await t.events.consumerInfo(MAX_DELIVERIES_CONSUMER);
    expect(config).toMatchObject({
      durable_name: MAX_DELIVERIES_CONSUMER,
      filter_subject: `$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.${t.events.namespace.stream}.*`,
      ack_policy: AckPolicy.Explicit,
      max_deliver: -1,
    });
  });

  it("shares the consumers with a second replica, whose start brings an older consumer's settings up to date", async () => {
    const jsm = await jetstreamManager(t.events.nc);
    await jsm.consumers.update(t.events.namespace.stream, 'BodegaDeletedHandler', {
      max_deliver: 99,
      ack_wait: nanos(30_000),
    });

    const replica = await startApp(t.config, createLogger('notifier', t.config.logLevel));
    try {
      expect((await t.events.consumerInfo('BodegaDeletedHandler')).config).toMatchObject({
        max_deliver: t.config.maxDeliver,
        ack_wait: nanos(t.config.ackWaitMs),
      });
      const envelopes = [1, 2, 3, 4].map((id) => sampleEnvelope('BodegaEliminada', { id }));
      let last = 0;
      for (const envelope of envelopes) last = await t.events.publish('BodegaEliminada', envelope);
      await t.events.processedThrough('BodegaDeletedHandler', last);
      for (const envelope of envelopes) expect(emailsOf(envelope.id)).toHaveLength(1);
    } finally {
      await replica.stop();
    }
  });
});
