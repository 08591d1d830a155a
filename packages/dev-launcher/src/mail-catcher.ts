/**
 * The local mail catcher of `npm start` (MailDev): an SMTP server that keeps
 * every message and a web inbox to read them. Run by the launcher as a child
 * process like the services, so it stops with them: on SIGTERM/SIGINT and
 * when the launcher's IPC channel closes (even if the launcher was killed).
 * Tells the launcher it is ready over IPC once SMTP and the web inbox accept
 * connections. (MailDev's web inbox allows any origin (CORS): it is a local
 * development tool bound to 127.0.0.1, never run beside real mail.)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { connect } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
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
/**
 * Resolves once something accepts TCP connections on 127.0.0.1:port (MailDev starts its web server without telling).
 */
async function accepting(port: number): Promise<void> {
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    await sleep(50);
  }
}

server.listen().then(
  async () => {
    await accepting(webPort);
    process.send?.({ type: READY_MESSAGE_TYPE });
  },
  (err: unknown) => {
    process.stderr.write(`mail catcher could not listen: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
