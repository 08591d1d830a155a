import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { loadConfig } from '../packages/dev-launcher/src/config';

/**
 * compose.yaml is for people who run MariaDB, NATS and MailDev with Docker
 * before `npm start`: it must parse, and every port and setting must be
 * what the launcher uses by default (its config module, not retyped here).
 */
interface ComposeService {
  image: string;
  command?: string[];
  environment?: Record<string, string>;
  ports?: string[];
}
const compose = parse(readFileSync(join(__dirname, '..', 'compose.yaml'), 'utf8')) as {
  services: Record<string, ComposeService>;
};
const defaults = loadConfig({});

/** The host side of each published port, as `host:port`. */
const published = (service: ComposeService | undefined) =>
  (service?.ports ?? []).map((mapping) => {
    const [host, hostPort, containerPort] = mapping.split(':');
    return { host, hostPort: Number(hostPort), containerPort: Number(containerPort) };
  });

describe('compose.yaml', () => {
  it('runs MariaDB, NATS and MailDev, each from a pinned image', () => {
    expect(Object.keys(compose.services).sort()).toEqual(['maildev', 'mariadb', 'nats']);
    for (const service of Object.values(compose.services)) expect(service.image).toMatch(/:\d+(\.\d+)*$/);
  });

  it('publishes MariaDB where both default database URLs point, with the password they use (none)', () => {
    for (const url of [defaults.PRODUCTO_DATABASE_URL, defaults.BODEGA_DATABASE_URL, defaults.IDENTIDAD_DATABASE_URL]) {
      const u = new URL(url);
      expect(published(compose.services.mariadb)).toContainEqual({
        host: u.hostname,
        hostPort: Number(u.port),
        containerPort: 3306,
      });
      expect(u.username).toBe('root');
      expect(u.password).toBe('');
    }
    expect(compose.services.mariadb?.environment?.MARIADB_ALLOW_EMPTY_ROOT_PASSWORD).toBe('1');
  });

  it('publishes NATS, with JetStream, where the default NATS_URL points', () => {
    const u = new URL(defaults.NATS_URL);
    expect(published(compose.services.nats)).toEqual([
      { host: u.hostname, hostPort: Number(u.port), containerPort: 4222 },
    ]);
    expect(compose.services.nats?.command).toContain('-js');
  });

  it("publishes MailDev on the launcher's mail catcher ports, the ports its own MailDev listens on", () => {
    const maildev = compose.services.maildev;
    expect(published(maildev)).toEqual([
      {
        host: '127.0.0.1',
        hostPort: defaults.MAIL_CATCHER_SMTP_PORT,
        containerPort: Number(maildev?.environment?.MAILDEV_SMTP_PORT),
      },
      {
        host: '127.0.0.1',
        hostPort: defaults.MAIL_CATCHER_WEB_PORT,
        containerPort: Number(maildev?.environment?.MAILDEV_WEB_PORT),
      },
    ]);
  });
});
