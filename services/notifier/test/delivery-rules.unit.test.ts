import { classifySmtpError, messageIdFor } from '../src/email/mailer';
import { createConcurrencyLimit } from '../src/events/concurrency-limit';
import { isLastDelivery, retryDelayMs } from '../src/events/retry-policy';
import { sentKeyFor } from '../src/events/sent-registry';

// The pure rules behind the ack policy: which failures are retried, how
// long to wait, when to give up, how ids become keys and Message-IDs.

const smtpError = (fields: Record<string, unknown>) => Object.assign(new Error('failed'), fields);

describe('SMTP failure classification', () => {
  it.each([
    [
      '550 mailbox unavailable',
      { code: 'EMESSAGE', responseCode: 550, permanent: true, response: '550 no such user' },
      true,
    ],
    ['554 rejected as spam', { code: 'EMESSAGE', responseCode: 554, permanent: true, response: '554 spam' }, true],
    ['535 bad credentials', { code: 'EAUTH', responseCode: 535, permanent: true, response: '535 auth failed' }, true],
    [
      '503 bad sequence (new connection helps)',
      { code: 'EPROTOCOL', responseCode: 503, permanent: false, response: '503 bad sequence' },
      false,
    ],
    ['451 try again later', { code: 'EMESSAGE', responseCode: 451, permanent: false, response: '451 later' }, false],
    ['421 service closing', { code: 'EENVELOPE', responseCode: 421, permanent: false, response: '421 bye' }, false],
    ['a 5xx without the permanent flag', { code: 'EENVELOPE', responseCode: 552, response: '552 too big' }, true],
    ['connection refused', { code: 'ESOCKET', errno: -111 }, false],
    ['a timeout', { code: 'ETIMEDOUT' }, false],
    ['a dropped connection', { code: 'ECONNECTION' }, false],
    ['a message that cannot be built', { code: 'EMESSAGE' }, true],
    ['an unknown error', {}, false],
  ])('%s is permanent: %s', (_case, fields, permanent) => {
    const failure = classifySmtpError(smtpError(fields));
    expect(failure.permanent).toBe(permanent);
    if ('responseCode' in fields) expect(failure.reason).toContain(String(fields.responseCode));
  });
});

describe('retry schedule', () => {
  const policy = { maxDeliver: 5, backoffMs: [1000, 5000, 30_000] };

  it.each([
    [1, 1000],
    [2, 5000],
    [3, 30_000],
    [4, 30_000],
    [9, 30_000],
  ])('waits, after failed delivery %i, %i ms', (deliveryCount, delay) => {
    expect(retryDelayMs(policy, deliveryCount)).toBe(delay);
  });

  it('gives up on delivery max_deliver and not before', () => {
    expect([1, 4, 5, 6].map((n) => isLastDelivery(policy, n))).toEqual([false, false, true, true]);
  });
});

describe('ids of an event', () => {
  it('keeps a UUID as the sent-registry key and the Message-ID local part', () => {
    const id = '4f1c6a2e-1d2b-4c3d-9e8f-0a1b2c3d4e5f';
    expect(sentKeyFor(id)).toBe(id);
    expect(messageIdFor(id)).toBe(`<${id}@inventario>`);
  });

  it('hashes an id with characters a KV key or Message-ID cannot hold, stably', () => {
    const id = 'evento 12 <x>@y';
    expect(sentKeyFor(id)).toMatch(/^sha256-[0-9a-f]{64}$/);
    expect(sentKeyFor(id)).toBe(sentKeyFor(id));
    expect(sentKeyFor(id)).not.toBe(sentKeyFor(`${id}.`));
    expect(messageIdFor(id)).toMatch(/^<[0-9a-f]{64}@inventario>$/);
  });
});

describe('concurrency limit', () => {
  it('lets at most max holders in at once and serves waiters in order', async () => {
    const limit = createConcurrencyLimit(2);
    const first = await limit.acquire();
    const second = await limit.acquire();
    const order: string[] = [];
    const third = limit.acquire().then((release) => (order.push('third'), release));
    const fourth = limit.acquire().then((release) => (order.push('fourth'), release));
    await Promise.resolve();
    expect(limit.active).toBe(2);
    expect(order).toEqual([]);

    first();
    first(); // releasing twice frees one slot only
    const releaseThird = await third;
    expect(order).toEqual(['third']);
    expect(limit.active).toBe(2);
    second();
    (await fourth)();
    releaseThird();
    expect(order).toEqual(['third', 'fourth']);
    expect(limit.active).toBe(0);
  });

  it('refuses a limit below one', () => {
    expect(() => createConcurrencyLimit(0)).toThrow(RangeError);
  });
});
