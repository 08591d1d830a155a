/**
 * The local mail catcher of `npm start` (MailDev): an SMTP server that keeps
 * every message and a web inbox to read them. Run by the launcher as a child
 * process like the services, so it stops with them: on SIGTERM/SIGINT and
 * when the launcher's IPC channel closes (even if the launcher was killed).
 * Tells the launcher it is ready over IPC once SMTP accepts connections.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { READY_MESSAGE_TYPE } from '@inventario/platform';

interface MailDevConfig {
  smtp: number;
  web: number;
  ip: string;
  webIp: string;
  mailDirectory: string;
  silent: boolean;
}
interface MailServer {
  listen(): Promise<void>;
}
// maildev ships no type declarations; this is the part of its API we use.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const startMailDev = require('maildev') as (config: MailDevConfig) => MailServer;

const [smtpPort, webPort] = process.argv.slice(2).map(Number);
if (!smtpPort || !webPort) {
  process.stderr.write('usage: mail-catcher <smtp-port> <web-port>\n');
  process.exit(2);
}

// MailDev exits 0 on SIGTERM/SIGINT by itself; a closed IPC channel means the launcher is gone.
process.on('disconnect', () => process.kill(process.pid, 'SIGTERM'));

// Messages live for this run only: MailDev keeps them in this directory, removed at exit.
const mailDirectory = mkdtempSync(join(tmpdir(), 'inventario-mail-'));
process.on('exit', () => rmSync(mailDirectory, { recursive: true, force: true }));

const server = startMailDev({
  smtp: smtpPort,
  web: webPort,
  ip: '127.0.0.1',
  webIp: '127.0.0.1',
  mailDirectory,
  silent: true,
});
server.listen().then(
  () => process.send?.({ type: READY_MESSAGE_TYPE }),
  (err: unknown) => {
    process.stderr.write(`mail catcher could not listen: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
