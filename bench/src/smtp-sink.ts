import { SMTPServer } from 'smtp-server';
import { freePort } from '@inventario/testkit';

/**
 * The mail provider the notifier sends to during a run (smtp-server, on
 * loopback). It accepts every message and records, by Message-ID (the
 * notifier sends `<eventId@inventario>`), when it answered 250: the end of
 * "write -> SMTP accepted". Only the header block is read, so the sink
 * costs the machine little while the services are measured.
 */
export interface SmtpSink {
  url: string;
  /** Messages accepted so far. */
  count(): number;
  /** performance.timeOrigin-based ms (Date.now() scale) of each acceptance, by the Message-ID's local part. */
  acceptedAt: Map<string, number>;
  close(): Promise<void>;
}

const MESSAGE_ID = /^message-id:\s*<([^@>]+)@[^>]*>/im;

export async function startSmtpSink(fixedPort?: number): Promise<SmtpSink> {
  const port = fixedPort ?? (await freePort());
  const acceptedAt = new Map<string, number>();
  let accepted = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    closeTimeout: 100,
    onData(stream, _session, done) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const headerEnd = text.search(/\r?\n\r?\n/);
        const id = MESSAGE_ID.exec(headerEnd >= 0 ? text.slice(0, headerEnd) : text)?.[1];
        accepted++;
        if (id !== undefined && !acceptedAt.has(id)) acceptedAt.set(id, Date.now());
        done();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return {
    url: `smtp://127.0.0.1:${port}`,
    count: () => accepted,
    acceptedAt,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
