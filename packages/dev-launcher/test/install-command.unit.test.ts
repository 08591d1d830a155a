import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findProgram } from '@inventario/local-servers';
import { installCommand } from '../src/install-command';

describe('the command npm start prints for missing server programs', () => {
  it.each([
    [
      'apt-get',
      ['mariadbd', 'mariadb-install-db', 'nats-server'],
      false,
      'sudo apt-get install -y mariadb-server nats-server',
    ],
    ['apt-get', ['nats-server'], true, 'apt-get install -y nats-server'],
    ['dnf', ['mariadbd', 'mariadb-install-db'], false, 'sudo dnf install -y mariadb-server'],
    ['zypper', ['nats-server', 'mariadbd'], false, 'sudo zypper install -y nats-server mariadb'],
    ['pacman', ['mariadbd', 'nats-server'], true, 'pacman -S --needed mariadb nats-server'],
    ['apk', ['mariadb-install-db'], true, 'apk add mariadb'],
    // Homebrew refuses to run as root: never sudo.
    ['brew', ['mariadbd', 'nats-server'], false, 'brew install mariadb nats-server'],
  ] as const)('%s installing %j (root: %s): %s', (manager, programs, isRoot, expected) => {
    expect(installCommand(manager, programs, isRoot)).toBe(expected);
  });

  it('has no command for an unknown package manager, or none', () => {
    expect(installCommand('emerge', ['nats-server'], true)).toBeUndefined();
    expect(installCommand(undefined, ['nats-server'], true)).toBeUndefined();
  });
});

describe('finding a server program', () => {
  const dir = mkdtempSync(join(tmpdir(), 'inventario-programs-'));
  const fake = join(dir, 'nats-server');
  writeFileSync(fake, '#!/bin/sh\n', { mode: 0o755 });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('takes the variable naming it when set, and counts a path that is no executable as not installed', () => {
    expect(findProgram('nats-server', { NATS_SERVER_BIN: fake })).toBe(fake);
    expect(findProgram('nats-server', { NATS_SERVER_BIN: join(dir, 'missing') })).toBeUndefined();
    expect(findProgram('nats-server', { NATS_SERVER_BIN: dir })).toBeUndefined();
  });

  it('searches PATH first, then the sbin folders a non-root PATH lacks', () => {
    expect(findProgram('nats-server', { PATH: dir })).toBe(fake);
    // Debian's nats-server is in /usr/sbin, found even with an empty PATH.
    expect(findProgram('nats-server', { PATH: '' })).toBe('/usr/sbin/nats-server');
  });
});
