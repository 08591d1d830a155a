import * as path from 'node:path';
import { createTransport } from 'nodemailer';
import type { Browser } from 'puppeteer-core';
import { freePort, startProcess, type ServiceProcess } from '@inventario/testkit';
import { artifactPath, chromiumInstalled, launchChromium } from '@inventario/testkit/browser';
import { loadConfig } from '../src/config';
import { inboxUrlOf } from '../src/services';

/**
 * The inbox link of npm start's banner, opened in headless Chromium as a
 * person would: the launcher's mail catcher (dist/mail-catcher.js, the
 * process npm start runs) serves MailDev's web inbox there, which lists a
 * mail sent to its SMTP port without any page error or request to another
 * origin. A screenshot is left in test-artifacts/browser/inbox.png.
 */
const MAIL_CATCHER = path.join(__dirname, '..', 'dist', 'mail-catcher.js');
const SUBJECT = 'Nuevo Producto Creado';

const describeWithBrowser = chromiumInstalled() ? describe : describe.skip;

describeWithBrowser('the inbox link of the banner, in a browser', () => {
  let catcher: ServiceProcess | undefined;
  let browser: Browser;
  let smtpPort: number;
  let inbox: string;

  beforeAll(async () => {
    smtpPort = await freePort();
    const webPort = await freePort();
    // The link exactly as the banner prints it for these ports.
    inbox = inboxUrlOf(
      loadConfig({ MAIL_CATCHER_SMTP_PORT: String(smtpPort), MAIL_CATCHER_WEB_PORT: String(webPort) }),
    )!;
    catcher = await startProcess('mail-catcher', [MAIL_CATCHER, String(smtpPort), String(webPort)], {});
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await catcher?.stop();
  });

  it('shows the mails the notifier would send, listed by subject', async () => {
    const transport = createTransport({ host: '127.0.0.1', port: smtpPort, secure: false, ignoreTLS: true });
    await transport.sendMail({
      from: 'inventario@localhost.localdomain',
      to: 'almacen@localhost.localdomain',
      subject: SUBJECT,
      html: '<p>Tornillo M6</p>',
    });
    transport.close();

    const page = await browser.newPage();
    const errors: string[] = [];
    const foreign: string[] = [];
    const origin = new URL(inbox).origin;
    page.on('pageerror', (err) => errors.push(`uncaught: ${err instanceof Error ? err.message : String(err)}`));
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(`console: ${message.text()}`);
    });
    page.on('response', (response) => {
      if (response.status() >= 400) errors.push(`${response.status()} ${response.url()}`);
    });
    await page.setRequestInterception(true);
    page.on('request', (request) => {
      const url = request.url();
      if (url.startsWith(`${origin}/`) || url.startsWith('data:') || url.startsWith(origin.replace(/^http/, 'ws')))
        return void request.continue();
      foreign.push(url);
      void request.abort('blockedbyclient');
    });

    const res = await page.goto(inbox, { waitUntil: 'load' });
    expect(res?.status()).toBe(200);
    await page.waitForFunction(
      `[...document.querySelectorAll('.email-list .email-item-link')].some((a) => a.textContent.includes(${JSON.stringify(SUBJECT)}))`,
      {
        timeout: 20_000,
      },
    );
    await page.screenshot({ path: artifactPath('inbox.png'), fullPage: true });
    expect(await page.title()).toContain('MailDev');
    expect(errors).toEqual([]);
    expect(foreign).toEqual([]);
  });
});
