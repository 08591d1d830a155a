/**
 * Configuration is parsed once at start: every problem in one error naming
 * its variable, defaults for what may be left out, nothing defaulted for what
 * must be given.
 */
import { z } from 'zod';
import { ConfigError, envSchemas, parseEnv } from '@inventario/platform';

const serviceSchema = z.object({
  NATS_URL: envSchemas.natsUrl(),
  DATABASE_URL: envSchemas.mysqlUrl(),
  GRPC_PORT: envSchemas.port(50051),
  LOG_LEVEL: envSchemas.logLevel(),
  EVENT_SUBJECT_PREFIX: envSchemas.subjectPrefix(),
  EVENT_STREAM: envSchemas.streamName(),
  OUTBOX_POLL_MS: envSchemas.milliseconds(250),
});

const DATABASE_URL = 'mysql://root@127.0.0.1:3306/inventario_producto';

/** The ConfigError `run` throws; fails the test when it throws nothing or something else. */
function configErrorOf(run: () => unknown): ConfigError {
  try {
    run();
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

describe('parseEnv', () => {
  it('applies the defaults of every variable left unset', () => {
    expect(parseEnv(serviceSchema, { DATABASE_URL })).toEqual({
      NATS_URL: 'nats://127.0.0.1:4222',
      DATABASE_URL,
      GRPC_PORT: 50051,
      LOG_LEVEL: 'info',
      EVENT_SUBJECT_PREFIX: 'inventario',
      EVENT_STREAM: 'INVENTARIO',
      OUTBOX_POLL_MS: 250,
    });
  });

  it('coerces numeric variables and keeps given values', () => {
    const config = parseEnv(serviceSchema, {
      DATABASE_URL,
      NATS_URL: 'nats://nats:4222',
      GRPC_PORT: '50060',
      LOG_LEVEL: 'debug',
      EVENT_SUBJECT_PREFIX: 't_run1',
      EVENT_STREAM: 'T_RUN1',
      OUTBOX_POLL_MS: '1000',
    });
    expect(config).toMatchObject({
      NATS_URL: 'nats://nats:4222',
      GRPC_PORT: 50060,
      LOG_LEVEL: 'debug',
      EVENT_SUBJECT_PREFIX: 't_run1',
      OUTBOX_POLL_MS: 1000,
    });
  });

  it('treats an empty variable as unset: the default applies, or the variable is reported as missing', () => {
    expect(parseEnv(serviceSchema, { DATABASE_URL, GRPC_PORT: '', NATS_URL: '', OUTBOX_POLL_MS: '' })).toMatchObject({
      GRPC_PORT: 50051,
      NATS_URL: 'nats://127.0.0.1:4222',
      OUTBOX_POLL_MS: 250,
    });
    expect(configErrorOf(() => parseEnv(serviceSchema, { DATABASE_URL: '' })).problems).toEqual([
      expect.stringMatching(/^DATABASE_URL: /),
    ]);
  });

  it.each(['0x10', '1e3', '-5', '12.5', ' 80', 'eighty'])(
    'rejects the non-decimal number %p for ports and durations',
    (value) => {
      const err = configErrorOf(() =>
        parseEnv(serviceSchema, { DATABASE_URL, GRPC_PORT: value, OUTBOX_POLL_MS: value }),
      );
      expect(err.problems.map((p) => p.split(':')[0])).toEqual(['GRPC_PORT', 'OUTBOX_POLL_MS']);
    },
  );

  it('ignores variables the schema does not name', () => {
    expect(parseEnv(serviceSchema, { DATABASE_URL, HOME: '/root', PATH: '/usr/bin' })).not.toHaveProperty('HOME');
  });

  it('lists every problem in one one-line error, each naming its variable', () => {
    const err = configErrorOf(() =>
      parseEnv(serviceSchema, {
        NATS_URL: 'http://nats:4222',
        GRPC_PORT: '99999',
        LOG_LEVEL: 'loud',
        EVENT_SUBJECT_PREFIX: 'a..b',
        EVENT_STREAM: 'has space',
        OUTBOX_POLL_MS: '-1',
      }),
    );
    const variables = [
      'NATS_URL',
      'DATABASE_URL',
      'GRPC_PORT',
      'LOG_LEVEL',
      'EVENT_SUBJECT_PREFIX',
      'EVENT_STREAM',
      'OUTBOX_POLL_MS',
    ];
    expect(err.problems).toHaveLength(variables.length);
    variables.forEach((name, i) => expect(err.problems[i]).toMatch(new RegExp(`^${name}: `)));
    expect(err.name).toBe('ConfigError');
    expect(err.message).toMatch(/^invalid configuration: /);
    expect(err.message).not.toContain('\n');
    for (const name of variables) expect(err.message).toContain(name);
  });

  it('names a required variable that is missing and nothing else', () => {
    const err = configErrorOf(() => parseEnv(serviceSchema, {}));
    expect(err.problems).toEqual([expect.stringMatching(/^DATABASE_URL: /)]);
  });

  it('reports every missing required variable, such as secrets, which have no default', () => {
    const schema = z.object({ BFF_USER: z.string().min(1), BFF_PASSWORD: z.string().min(1) });
    const err = configErrorOf(() => parseEnv(schema, {}));
    expect(err.problems.map((p) => p.split(':')[0])).toEqual(['BFF_USER', 'BFF_PASSWORD']);
  });
});

describe('envSchemas', () => {
  it.each([
    ['nats://127.0.0.1:4222', true],
    ['nats://nats', true],
    ['tls://a:4222,nats://b:4222', true],
    ['http://nats:4222', false],
    ['nats://', false],
    ['nats://a b', false],
    ['nats://a,', false],
    ['nats://a, nats://b', false],
  ])('natsUrl accepts %j: %s', (value, ok) => {
    expect(envSchemas.natsUrl().safeParse(value).success).toBe(ok);
  });

  it('natsUrl defaults to the local server', () => {
    expect(envSchemas.natsUrl().parse(undefined)).toBe('nats://127.0.0.1:4222');
  });

  it.each([
    ['mysql://root@127.0.0.1:3306/inventario_producto', true],
    ['mysql://app:s3cret@db/inventario_bodega', true],
    ['mysql://app:p%40ss@db:3307/inv', true],
    // Options in a query string would be silently ignored by createDb: refused.
    ['mysql://app@db:3307/inv?ssl=true', false],
    ['postgres://app@db/inv', false],
    ['mysql://app@db', false],
    ['mysql://app@db/', false],
    ['mysql://app@db/bad-name', false],
    ['mysql://app@db/a b', false],
  ])('mysqlUrl accepts %j: %s', (value, ok) => {
    expect(envSchemas.mysqlUrl().safeParse(value).success).toBe(ok);
  });

  it('mysqlUrl has no default: the database is always named', () => {
    expect(envSchemas.mysqlUrl().safeParse(undefined).success).toBe(false);
  });

  it.each([
    ['inventario', true],
    ['t_mhx2k1ab.run-2', true],
    ['a..b', false],
    ['.a', false],
    ['a.', false],
    ['a b', false],
    ['a.*', false],
    ['a.>', false],
    ['', false],
  ])('subjectPrefix accepts %j: %s', (value, ok) => {
    expect(envSchemas.subjectPrefix().safeParse(value).success).toBe(ok);
  });

  it('subjectPrefix defaults to inventario, the stream name to INVENTARIO', () => {
    expect(envSchemas.subjectPrefix().parse(undefined)).toBe('inventario');
    expect(envSchemas.streamName().parse(undefined)).toBe('INVENTARIO');
  });

  it.each([
    ['8080', 8080],
    ['0', 0],
    ['65535', 65535],
    ['65536', undefined],
    ['-1', undefined],
    ['1.5', undefined],
    ['http', undefined],
  ])('port reads %j as %s', (value, expected) => {
    const result = envSchemas.port(8080).safeParse(value);
    expect(result.success ? result.data : undefined).toBe(expected);
  });

  it.each(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])('logLevel accepts %s', (level) => {
    expect(envSchemas.logLevel().parse(level)).toBe(level);
  });
});
