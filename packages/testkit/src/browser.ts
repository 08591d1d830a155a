/**
 * Headless Chromium for the tests that look at the BFF's pages as a person
 * does: Debian's `chromium` package driven by puppeteer-core (which brings no
 * browser of its own). `.ci/run` installs the package when it is missing; on
 * a machine without it the browser tests are skipped, saying so.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import puppeteer, { type Browser } from 'puppeteer-core';

/** Where Debian's `chromium` package puts the browser. */
export const CHROMIUM_PATH = '/usr/bin/chromium';

/** Screenshots and other files a test leaves for a person to look at (git-ignored). */
export const ARTIFACTS_DIR = join(__dirname, '..', '..', '..', 'test-artifacts', 'browser');

/** Whether Chromium is installed; when not, also tells the run (once per file) how to install it. */
export function chromiumInstalled(): boolean {
  if (existsSync(CHROMIUM_PATH)) return true;
  process.stderr.write(
    `browser tests SKIPPED: no Chromium at ${CHROMIUM_PATH}; install it with: apt-get install -y chromium\n`,
  );
  return false;
}

/**
 * A headless Chromium whose host resolver maps every name in `hosts` to
 * 127.0.0.1 (so a page can be opened under a name that is not a loopback
 * one) and every other name to nothing: whatever a page or the browser
 * itself asks of the outside world goes nowhere; the address 127.0.0.1
 * itself stays reachable (a link printed as http://127.0.0.1:port/). No sandbox:
 * the tests run as root in CI, where Chromium's sandbox cannot start, and
 * the browser only ever opens this test's own server.
 */
export function launchChromium(hosts: readonly string[] = []): Promise<Browser> {
  const args = ['--no-sandbox', '--disable-gpu', '--no-first-run', '--no-default-browser-check'];
  args.push(
    `--host-resolver-rules=${[
      ...hosts.map((h) => `MAP ${h} 127.0.0.1`),
      'MAP * ~NOTFOUND',
      'EXCLUDE ' + '127.0.0.1',
    ].join(', ')}`,
  );
  return puppeteer.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args,
    defaultViewport: { width: 1280, height: 900 },
  });
}

/** The path a screenshot named `name` is saved at (the folder is created). */
export function artifactPath(name: string): string {
  mkdirSync(ARTIFACTS_DIR, { recursive: true });
  return join(ARTIFACTS_DIR, name);
}
