/**
 * Credentials in URLs never reach a log line: redactUrlCredentials on plain
 * and JSON text, and the logger, which applies it to every finished line
 * (so a library's error that echoes a URL is covered too).
 */
import { createLogger, redactUrlCredentials } from '@inventario/platform';

describe('redactUrlCredentials', () => {
  it.each([
    ['user and password', 'mysql://app:s3cret@db:3306/inv', 'mysql://[redacted]@db:3306/inv'],
    ['a token alone', 'nats://s3cret@nats:4222', 'nats://[redacted]@nats:4222'],
    [
      'several servers',
      'nats://a:s3cret@n1:4222,nats://b:s3cret@n2:4222',
      'nats://[redacted]@n1:4222,nats://[redacted]@n2:4222',
    ],
    ['an unencoded @ in the password', 'smtp://mailer:s3@cret@smtp.example:587', 'smtp://[redacted]@smtp.example:587'],
    [
      'a URL inside a sentence',
      'connect to mysql://app:s3cret@db/inv failed',
      'connect to mysql://[redacted]@db/inv failed',
    ],
    [
      'an escaped quote inside JSON',
      '{"input":"mysql://app:s3\\"cret@db/inv"}',
      '{"input":"mysql://[redacted]@db/inv"}',
    ],
  ])('redacts %s', (_case, text, expected) => {
    expect(redactUrlCredentials(text)).toBe(expected);
  });

  it.each([
    ['a URL without credentials', 'nats://127.0.0.1:4222'],
    ['an email address', 'sent to almacen@example.com'],
    ['a URL whose path holds an @', 'https://cdn.example/pkg@1.0/x.js'],
    ['JSON with a URL and a later @ in another string', '{"nats":"nats://n1:4222","to":"almacen@example.com"}'],
  ])('leaves %s as it is', (_case, text) => {
    expect(redactUrlCredentials(text)).toBe(text);
  });
});

describe('createLogger', () => {
  function capture(): { lines: string[]; logger: ReturnType<typeof createLogger> } {
    const lines: string[] = [];
    return { lines, logger: createLogger('t', 'debug', { write: (line: string) => void lines.push(line) }) };
  }

  it('redacts URL credentials in any field, an error message, stack and input (ERR_INVALID_URL) included, and keeps valid JSON', () => {
    const { lines, logger } = capture();
    let invalid: unknown;
    try {
      new URL('mysql://app:s3cret@db:99999/inv');
    } catch (err) {
      invalid = err;
    }
    logger.fatal({ err: invalid }, 'failed to start');
    logger.warn({ knex: 'Acquire connection error: connect to mysql://app:s3cret@db/inv refused' }, 'knex warning');
    logger.info({ nats: 'nats://u:s3cret@n1:4222' }, 'nats connected');
    logger.error(new Error('smtp://mailer:s3cret@smtp.example:587 refused the login'));
    expect(lines).toHaveLength(4);
    expect(lines.filter((line) => line.includes('s3cret'))).toEqual([]);
    const parsed = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect((parsed[0]?.err as { input?: string }).input).toBe('mysql://[redacted]@db:99999/inv');
    expect(parsed[2]?.nats).toBe('nats://[redacted]@n1:4222');
  });

  it('redacts config-shaped objects by key', () => {
    const { lines, logger } = capture();
    logger.info({ config: { databaseUrl: 'x', natsUrl: 'y', smtpUrl: 'z', password: 'w' } }, 'config');
    expect((JSON.parse(lines[0] ?? '{}') as { config: unknown }).config).toEqual({
      databaseUrl: '[redacted]',
      natsUrl: '[redacted]',
      smtpUrl: '[redacted]',
      password: '[redacted]',
    });
  });
});
