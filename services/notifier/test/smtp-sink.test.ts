/**
 * The test SMTP server survives a client that resets its connection in the
 * middle of a message (a notifier killed while sending): smtp-server reports
 * that as an 'error' event, which without a listener is an uncaught
 * exception in the jest worker, failing whatever test or hook runs then.
 */
import { connect, type Socket } from 'node:net';
import { startSmtpSink, type SmtpSink } from '@inventario/testkit/smtp-sink';

let sink: SmtpSink;

beforeAll(async () => {
  sink = await startSmtpSink();
});

afterAll(async () => {
  await sink?.stop();
});

/** Talks SMTP on a raw socket: each command once the previous reply arrived. */
function transaction(port: number, commands: string[], onLast: (socket: Socket) => void): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const queue = [...commands];
    let transcript = '';
    socket.on('data', (chunk: Buffer) => {
      transcript += chunk.toString();
      if (!/\r\n$/.test(transcript) || /^\d{3}-/m.test(transcript.split('\r\n').at(-2) ?? '')) return;
      const next = queue.shift();
      if (next === undefined) return;
      socket.write(next);
      if (queue.length === 0) onLast(socket);
    });
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(transcript));
    socket.setTimeout(10_000, () => reject(new Error(`no progress: ${transcript}`)));
  });
}

const MESSAGE = [
  'EHLO cliente\r\n',
  'MAIL FROM:<a@example.com>\r\n',
  'RCPT TO:<b@example.com>\r\n',
  'DATA\r\n',
  'Subject: x\r\n\r\nhola\r\n.\r\n',
];

test('a client reset in the middle of a message is recorded, not thrown, and the sink keeps accepting mail', async () => {
  // The reply to the message is held back, so the reset lands while the transaction is open.
  sink.setDelay(300);
  await transaction(sink.port, MESSAGE, (socket) => setTimeout(() => socket.resetAndDestroy(), 50));
  // The server answers the message after the delay, on the socket the client reset.
  await new Promise((resolve) => setTimeout(resolve, 600));
  expect(sink.connectionErrors.map((err) => (err as NodeJS.ErrnoException).code)).toContain('ECONNRESET');

  sink.setDelay(0);
  const before = sink.received.length;
  await transaction(sink.port, [...MESSAGE, 'QUIT\r\n'], () => undefined);
  expect(sink.received.length).toBe(before + 1);
});
