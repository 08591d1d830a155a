import { jetstreamManager } from '@nats-io/jetstream';
import { eventSubject } from '@inventario/platform';
import { waitFor } from '@inventario/testkit';
import { DEAD_LETTER_HEADERS } from '../src/events/dead-letter';
import { EVENT_TYPES_WITHOUT_EMAIL } from '../src/handlers';
import { counterValue } from '../src/metrics';
import { sampleEnvelope } from '../src/sample-events';
import { startTestNotifier, type TestNotifier } from './support/test-notifier';

// The stock ledger's events (docs/contract.md §10.4) against the notifier
// in-process, the real NATS and a real SMTP server: a StockBajo is one
// "Stock Bajo" email with the guarantees of every other email; the
// MovimientoRegistrado and StockRepuesto events are not the notifier's: it
// sends nothing for them and nothing of them waits at any of its consumers.

let t: TestNotifier;

beforeAll(async () => {
  t = await startTestNotifier();
});

afterAll(async () => {
  await t?.close();
});

function emailsOf(eventId: string) {
  return t.sink.received.filter((e) => e.headers.get('x-inventario-event-id') === eventId);
}

function emailFor(eventId: string) {
  return waitFor(() => emailsOf(eventId)[0], `the email of event ${eventId}`, 30_000);
}

describe('a StockBajo event', () => {
  it('is one "Stock Bajo" email showing the product and warehouse ids, the units, the threshold, who caused it, the operation and the date, escaped in HTML', async () => {
    const usuario = '<b onmouseover="x">eva</b>';
    const envelope = sampleEnvelope('StockBajo', { id: 41, usuario, at: new Date('2026-11-25T10:05:00Z') });
    const seq = await t.events.publish('StockBajo', envelope);

    const email = await emailFor(envelope.id);
    await t.events.processedThrough('StockBajoHandler', seq);
    expect(emailsOf(envelope.id)).toHaveLength(1);
    // No service answers the name lookups here: the level by its ids.
    expect(email.subject).toBe('Stock Bajo: producto 41 en bodega 3');
    expect(email.messageId).toBe(`<${envelope.id}@inventario>`);
    expect(email.headers.get('x-inventario-event-type')).toBe('Service.Inventario.StockBajo');

    const rows = email.text.split('\n');
    expect(rows[0]).toBe('Stock Bajo');
    expect(rows).toEqual(
      expect.arrayContaining([
        'Producto: 41',
        'Bodega: 3',
        'Unidades: 4',
        'Umbral mínimo: 5',
        'Operación: 9',
        'Fecha: 25 de noviembre de 2026, 10:05:00 UTC',
        // The text part is text: the user as typed.
        `Usuario: ${usuario}`,
      ]),
    );
    expect(email.text).toContain('El stock del producto 41 en la bodega 3 llegó a su umbral mínimo o bajó de él');

    for (const [label, value] of [
      ['Producto', '41'],
      ['Bodega', '3'],
      ['Unidades', '4'],
      ['Umbral mínimo', '5'],
      ['Operación', '9'],
    ]) {
      expect(email.html).toMatch(new RegExp(`>${label}</th><td[^>]*>${value}</td>`));
    }
    expect(email.html).toContain('<time datetime="2026-11-25T10:05:00Z">25 de noviembre de 2026, 10:05:00 UTC</time>');
    expect(email.html).toContain('&lt;b onmouseover&#x3D;&quot;x&quot;&gt;eva&lt;/b&gt;');
    expect(email.html).not.toContain('<b ');
    expect(await counterValue(t.app.metrics.sent, 'StockBajo')).toBeGreaterThanOrEqual(1);
  });

  it('published twice, in separate stream messages, is emailed once and recorded as sent', async () => {
    const envelope = sampleEnvelope('StockBajo', { id: 42 });
    const payload = JSON.stringify(envelope);
    await t.events.publish('StockBajo', payload);
    const second = await t.events.publish('StockBajo', payload);

    await emailFor(envelope.id);
    await t.events.processedThrough('StockBajoHandler', second);
    expect(emailsOf(envelope.id)).toHaveLength(1);
    expect(await t.events.sentEntry(envelope.id)).toMatchObject({
      state: 'sent',
      messageId: `<${envelope.id}@inventario>`,
    });
  });

  it.each([
    [
      'without cantidad',
      () => {
        const envelope = sampleEnvelope('StockBajo');
        const { cantidad: _cantidad, ...data } = envelope.data as unknown as Record<string, unknown>;
        return { ...envelope, data };
      },
      /data\.cantidad/,
    ],
    [
      'with a productoId that is not an id',
      () => {
        const envelope = sampleEnvelope('StockBajo');
        return { ...envelope, data: { ...envelope.data, productoId: 'doce' } };
      },
      /data\.productoId/,
    ],
    [
      'claiming producto-svc as its producer',
      () => ({ ...sampleEnvelope('StockBajo'), source: 'producto-svc' }),
      /source is not bodega-svc/,
    ],
    [
      'of another type on this subject',
      () => sampleEnvelope('StockRepuesto'),
      /eventType is not Service\.Inventario\.StockBajo/,
    ],
  ])(
    '%s is dead-lettered to the stock.bajo dead letters, naming the problem, without an email',
    async (_case, body, reason) => {
      const before = (await t.events.deadLetters()).length;
      const emailsBefore = t.sink.received.length;
      const seq = await t.events.publish('StockBajo', JSON.stringify(body()));

      await t.events.processedThrough('StockBajoHandler', seq);
      const letters = (await t.events.deadLetters()).slice(before);
      expect(letters).toHaveLength(1);
      expect(letters[0]).toMatchObject({
        subject: `${t.events.namespace.prefix}_dlq.stock.bajo`,
        headers: {
          [DEAD_LETTER_HEADERS.consumer]: 'StockBajoHandler',
          [DEAD_LETTER_HEADERS.originalSubject]: eventSubject(t.events.namespace.prefix, 'StockBajo'),
          [DEAD_LETTER_HEADERS.reason]: expect.stringMatching(reason),
        },
      });
      expect(t.sink.received.length).toBe(emailsBefore);
    },
  );
});

describe('MovimientoRegistrado and StockRepuesto', () => {
  it("are not the notifier's: no email, no dead letter, and nothing of them pending or redelivered at any of its consumers", async () => {
    expect([...EVENT_TYPES_WITHOUT_EMAIL].sort()).toEqual(['MovimientoRegistrado', 'StockRepuesto']);
    const lettersBefore = (await t.events.deadLetters()).length;
    const silent = EVENT_TYPES_WITHOUT_EMAIL.map((type) => ({ type, envelope: sampleEnvelope(type) }));
    for (const { type, envelope } of silent) await t.events.publish(type, envelope);
    // Published after them, on the same stream: once it is emailed, so would they have been.
    const after = sampleEnvelope('StockBajo', { id: 43 });
    const afterSeq = await t.events.publish('StockBajo', after);
    await emailFor(after.id);
    await t.events.processedThrough('StockBajoHandler', afterSeq);

    const jsm = await jetstreamManager(t.events.nc);
    await waitFor(
      async () => {
        for await (const info of jsm.consumers.list(t.events.namespace.stream)) {
          if (info.num_pending > 0 || info.num_ack_pending > 0 || info.num_redelivered > 0) return false;
        }
        return true;
      },
      'every notifier consumer to have nothing pending, unacknowledged or redelivered',
      30_000,
    );
    for (const { envelope } of silent) expect(emailsOf(envelope.id)).toEqual([]);
    expect((await t.events.deadLetters()).length - lettersBefore).toBe(0);
    for (const type of EVENT_TYPES_WITHOUT_EMAIL) {
      expect(await counterValue(t.app.metrics.sent, type)).toBe(0);
      expect(await counterValue(t.app.metrics.deadLettered, type)).toBe(0);
    }
  });
});
