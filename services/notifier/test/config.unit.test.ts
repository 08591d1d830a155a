import { ConfigError } from '@inventario/platform';
import { describeSmtpUrl, loadConfig, loadProvisionConfig, loadReplayConfig } from '../src/config';

const REQUIRED = {
  SMTP_URL: 'smtp://notifier:s3cr3t0@mail.example.com:587',
  SENDER_EMAIL: 'inventario@example.com',
  RECIPIENT_EMAIL: 'almacen@example.com',
};

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  return [];
}

describe('notifier configuration', () => {
  it('needs only SMTP_URL, SENDER_EMAIL and RECIPIENT_EMAIL, with documented defaults for the rest', () => {
    expect(loadConfig(REQUIRED)).toEqual({
      smtpUrl: REQUIRED.SMTP_URL,
      senderEmail: 'inventario@example.com',
      recipientEmails: ['almacen@example.com'],
      natsUrl: 'nats://127.0.0.1:4222',
      metricsPort: 9103,
      metricsHost: '0.0.0.0',
      logLevel: 'info',
      natsStream: 'INVENTARIO',
      natsSubjectPrefix: 'inventario',
      eventTypeNamespace: 'Service',
      streamLimits: { maxAgeMs: 720 * 3600_000, maxBytes: 512 * 1024 * 1024 },
      deadLetterMaxBytes: 128 * 1024 * 1024,
      streamReplicas: 1,
      concurrency: 4,
      maxDeliver: 10,
      backoffMs: [1000, 5000, 30_000, 120_000, 600_000],
      ackWaitMs: 60_000,
      sentBucket: 'notifier-sent',
      shutdownTimeoutMs: 25_000,
      // Where the names its emails show are looked up: the services' default ports.
      productoSvcAddr: '127.0.0.1:50051',
      bodegaSvcAddr: '127.0.0.1:50052',
    });
  });

  it('reports every missing secret and address at once, each by its variable', () => {
    expect(problemsOf({}).map((p) => p.split(':')[0])).toEqual(['SMTP_URL', 'SENDER_EMAIL', 'RECIPIENT_EMAIL']);
    expect(problemsOf({ ...REQUIRED, SMTP_URL: '' })).toEqual([expect.stringMatching(/^SMTP_URL: /)]);
  });

  it.each([
    ['SMTP_URL', 'http://mail.example.com'],
    ['SMTP_URL', 'mail.example.com:25'],
    ['SMTP_URL', 'smtp://'],
    ['SENDER_EMAIL', 'inventario'],
    ['RECIPIENT_EMAIL', 'almacen@example.com, no es un correo'],
    ['NATS_URL', 'http://127.0.0.1:4222'],
    ['NOTIFIER_CONCURRENCY', '0'],
    ['NOTIFIER_CONCURRENCY', '1e3'],
    ['NOTIFIER_MAX_DELIVER', '-1'],
    ['NOTIFIER_BACKOFF_MS', '1s,5s'],
    ['NOTIFIER_BACKOFF_MS', '1000,10'],
    ['NOTIFIER_ACK_WAIT_MS', '500'],
    ['NOTIFIER_SENT_BUCKET', 'no.dots'],
    ['SHUTDOWN_TIMEOUT_MS', 'pronto'],
    ['METRICS_PORT', '65536'],
    ['NATS_STREAM_MAX_AGE_HOURS', '87601'],
    ['NATS_STREAM_MAX_BYTES', '1024'],
  ])('rejects %s=%j naming the variable', (variable, value) => {
    expect(problemsOf({ ...REQUIRED, [variable]: value })).toEqual([
      expect.stringMatching(new RegExp(`^${variable}: `)),
    ]);
  });

  it('never repeats the SMTP password in an error', () => {
    const problems = problemsOf({ ...REQUIRED, SMTP_URL: 'ftp://notifier:s3cr3t0@mail.example.com' });
    expect(problems).toHaveLength(1);
    expect(problems.join()).not.toContain('s3cr3t0');
  });

  it('accepts smtps:// and several comma-separated recipients', () => {
    const config = loadConfig({
      ...REQUIRED,
      SMTP_URL: 'smtps://mail.example.com',
      RECIPIENT_EMAIL: 'a@example.com, b@example.com',
    });
    expect(config.recipientEmails).toEqual(['a@example.com', 'b@example.com']);
    expect(config.smtpUrl).toBe('smtps://mail.example.com');
  });

  it('reads METRICS_PORT and METRICS_HOST; 0 is an ephemeral port', () => {
    expect(loadConfig({ ...REQUIRED, METRICS_PORT: '0', METRICS_HOST: '127.0.0.1' })).toMatchObject({
      metricsPort: 0,
      metricsHost: '127.0.0.1',
    });
  });

  it('parses the backoff schedule in order', () => {
    expect(loadConfig({ ...REQUIRED, NOTIFIER_BACKOFF_MS: '250,1000,8000' }).backoffMs).toEqual([250, 1000, 8000]);
  });

  it('describes the SMTP server for logs without user or password, with the default port', () => {
    expect(describeSmtpUrl(REQUIRED.SMTP_URL)).toBe('smtp://mail.example.com:587');
    expect(describeSmtpUrl('smtps://u:p@mail.example.com')).toBe('smtps://mail.example.com:465');
  });
});

describe('dlq:replay configuration', () => {
  it("needs nothing: the notifier's NATS defaults, and warn-level logs", () => {
    expect(loadReplayConfig({})).toEqual({
      natsUrl: 'nats://127.0.0.1:4222',
      natsStream: 'INVENTARIO',
      natsSubjectPrefix: 'inventario',
      logLevel: 'warn',
    });
  });

  it('reads the same variables as the notifier, refusing bad ones by name', () => {
    expect(
      loadReplayConfig({
        NATS_URL: 'nats://n:4222',
        NATS_STREAM: 'OTRO',
        NATS_SUBJECT_PREFIX: 'x.y',
        LOG_LEVEL: 'debug',
        SMTP_URL: 'ignored',
      }),
    ).toEqual({
      natsUrl: 'nats://n:4222',
      natsStream: 'OTRO',
      natsSubjectPrefix: 'x.y',
      logLevel: 'debug',
    });
    expect(() => loadReplayConfig({ NATS_STREAM: 'no.dots' })).toThrow(/^invalid configuration: NATS_STREAM: /);
  });

  it("runs as the NATS user of NATS_USER / NATS_PASSWORD (the chart's dlq-replay), both or neither", () => {
    expect(loadReplayConfig({ NATS_USER: 'dlq-replay', NATS_PASSWORD: 's3cret' }).natsCredentials).toEqual({
      user: 'dlq-replay',
      pass: 's3cret',
    });
    expect(loadReplayConfig({}).natsCredentials).toBeUndefined();
    expect(() => loadReplayConfig({ NATS_USER: 'dlq-replay' })).toThrow(/NATS_PASSWORD/);
  });
});

describe('provisioning configuration', () => {
  it("applies the notifier's stream settings, read from the same variables, as the NATS user given", () => {
    expect(
      loadProvisionConfig({
        NATS_USER: 'provisioner',
        NATS_PASSWORD: 'p',
        NATS_STREAM_MAX_BYTES: String(64 * 1024 * 1024),
        NATS_DLQ_MAX_BYTES: '0',
      }),
    ).toEqual({
      natsUrl: 'nats://127.0.0.1:4222',
      natsCredentials: { user: 'provisioner', pass: 'p' },
      jetStream: {
        stream: 'INVENTARIO',
        prefix: 'inventario',
        limits: { maxAgeMs: 720 * 3600_000, maxBytes: 64 * 1024 * 1024 },
        deadLetterMaxBytes: 0,
        sentBucket: 'notifier-sent',
        replicas: 1,
      },
    });
    expect(() => loadProvisionConfig({ NATS_DLQ_MAX_BYTES: '1000' })).toThrow(
      /^invalid configuration: NATS_DLQ_MAX_BYTES: /,
    );
  });

  it('provisions the copies NATS_STREAM_REPLICAS asks for (the chart passes 3 with a three-node NATS), 1 to 5', () => {
    expect(
      loadProvisionConfig({ NATS_STREAM_REPLICAS: '3', NATS_URL: 'nats://n0:4222,nats://n1:4222,nats://n2:4222' })
        .jetStream.replicas,
    ).toBe(3);
    expect(loadConfig({ ...REQUIRED, NATS_STREAM_REPLICAS: '3' }).streamReplicas).toBe(3);
    expect(() => loadProvisionConfig({ NATS_STREAM_REPLICAS: '7' })).toThrow(
      /^invalid configuration: NATS_STREAM_REPLICAS: must be at most 5/,
    );
  });
});
