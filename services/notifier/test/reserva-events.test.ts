import { eventSubject } from '@inventario/platform';
import { waitFor } from '@inventario/testkit';
import { DEAD_LETTER_HEADERS } from '../src/events/dead-letter';
import { counterValue } from '../src/metrics';
import { sampleEnvelope } from '../src/sample-events';
import { RECIPIENT, startTestNotifier, type TestNotifier } from './support/test-notifier';

// ReservaDescubierta (docs/contract.md §13.8) against the notifier in-process, the real NATS and a real SMTP server:
// someone was promised units that are not there, and the recipients hear it once, with the guarantees of every
// other email (§6).

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

describe('a ReservaDescubierta event', () => {
  it('is one "Reserva Descubierta" email naming the order, what is missing per level, what was held, who caused it and the date, escaped in HTML', async () => {
    const usuario = '<b onmouseover="x">eva</b>';
    const envelope = sampleEnvelope('ReservaDescubierta', {
      id: 61,
      nombre: 'pedido <7>',
      usuario,
      at: new Date('2026-11-25T10:05:00Z'),
    });
    const seq = await t.events.publish('ReservaDescubierta', envelope);

    const email = await emailFor(envelope.id);
    await t.events.processedThrough('ReservaDescubiertaHandler', seq);
    expect(emailsOf(envelope.id)).toHaveLength(1);
    expect(email.subject).toBe('Reserva Descubierta: pedido <7>');
    expect(email.messageId).toBe(`<${envelope.id}@inventario>`);
    expect(email.headers.get('x-inventario-event-type')).toBe('Service.Inventario.ReservaDescubierta');
    expect(email.to).toEqual([RECIPIENT]);

    const rows = email.text.split('\n');
    expect(rows[0]).toBe('Reserva Descubierta');
    expect(rows).toEqual(
      expect.arrayContaining([
        'Reserva: 61',
        'Referencia: pedido <7>',
        'Faltan: 3 unidades del producto 12 en la bodega 3',
        'Reservado: 4 unidades del producto 12 en la bodega 3; 2 unidades del producto 12 en la bodega 4',
        'Expiraba: 25 de noviembre de 2026, 10:20:00 UTC',
        'Fecha: 25 de noviembre de 2026, 10:05:00 UTC',
        `Usuario: ${usuario}`,
      ]),
    );
    expect(email.html).toMatch(/>Referencia<\/th><td[^>]*>pedido &lt;7&gt;<\/td>/);
    expect(email.html).toMatch(/>Faltan<\/th><td[^>]*>3 unidades del producto 12 en la bodega 3<\/td>/);
    expect(email.html).toContain('&lt;b onmouseover&#x3D;&quot;x&quot;&gt;eva&lt;/b&gt;');
    expect(email.html).not.toContain('<b ');
    expect(await counterValue(t.app.metrics.sent, 'ReservaDescubierta')).toBeGreaterThanOrEqual(1);
  });

  it('published twice, in separate stream messages, is emailed once and recorded as sent', async () => {
    const envelope = sampleEnvelope('ReservaDescubierta', { id: 62 });
    const payload = JSON.stringify(envelope);
    await t.events.publish('ReservaDescubierta', payload);
    const second = await t.events.publish('ReservaDescubierta', payload);

    await emailFor(envelope.id);
    await t.events.processedThrough('ReservaDescubiertaHandler', second);
    expect(emailsOf(envelope.id)).toHaveLength(1);
    expect(await t.events.sentEntry(envelope.id)).toMatchObject({
      state: 'sent',
      messageId: `<${envelope.id}@inventario>`,
    });
  });

  it.each([
    [
      'without faltante',
      () => {
        const envelope = sampleEnvelope('ReservaDescubierta');
        const { faltante: _faltante, ...data } = envelope.data as unknown as Record<string, unknown>;
        return { ...envelope, data };
      },
      /data\.faltante/,
    ],
    [
      'with a shortfall of no units',
      () => {
        const envelope = sampleEnvelope('ReservaDescubierta');
        return { ...envelope, data: { ...envelope.data, faltante: [{ bodegaId: 3, productoId: 12, unidades: 0 }] } };
      },
      /data\.faltante\.0\.unidades/,
    ],
    [
      'claiming producto-svc as its producer',
      () => ({ ...sampleEnvelope('ReservaDescubierta'), source: 'producto-svc' }),
      /source is not bodega-svc/,
    ],
    [
      'of another type on this subject',
      () => sampleEnvelope('StockBajo'),
      /eventType is not Service\.Inventario\.ReservaDescubierta/,
    ],
  ])(
    '%s is dead-lettered to the reserva.descubierta dead letters, naming the problem, without an email',
    async (_case, body, reason) => {
      const before = (await t.events.deadLetters()).length;
      const emailsBefore = t.sink.received.length;
      const seq = await t.events.publish('ReservaDescubierta', JSON.stringify(body()));

      await t.events.processedThrough('ReservaDescubiertaHandler', seq);
      const letters = (await t.events.deadLetters()).slice(before);
      expect(letters).toHaveLength(1);
      expect(letters[0]).toMatchObject({
        subject: `${t.events.namespace.prefix}_dlq.reserva.descubierta`,
        headers: {
          [DEAD_LETTER_HEADERS.consumer]: 'ReservaDescubiertaHandler',
          [DEAD_LETTER_HEADERS.originalSubject]: eventSubject(t.events.namespace.prefix, 'ReservaDescubierta'),
          [DEAD_LETTER_HEADERS.reason]: expect.stringMatching(reason),
        },
      });
      expect(t.sink.received.length).toBe(emailsBefore);
    },
  );
});
