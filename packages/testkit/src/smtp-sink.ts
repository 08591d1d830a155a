import type { AddressObject, ParsedMail } from 'mailparser';
import { simpleParser } from 'mailparser';
import { SMTPServer, type SMTPServerDataStream } from 'smtp-server';
import { freePort } from './free-port';
import { waitFor } from './index';

/**
 * A real SMTP server (smtp-server) standing in for the mail provider. It can
 * accept, reject every message with a chosen 4xx/5xx reply, answer slowly,
 * and be stopped and started again on the same port (an outage). Accepted
 * messages are parsed with mailparser. It records when each message's DATA
 * ended and how many DATA phases were open at once.
 */

/** The addresses a test notifier sends from and to (its SENDER_EMAIL and RECIPIENT_EMAIL). */
export const SENDER = 'inventario@example.com';
export const RECIPIENT = 'almacen@example.com';

export interface ReceivedEmail {
  from: string;
  to: string[];
  subject: string;
  html: string;
  text: string;
  messageId: string;
  headers: ParsedMail['headers'];
}

export type SinkMode = { accept: true } | { accept: false; code: number; message: string };

export interface SmtpSink {
  port: number;
  /** `smtp://127.0.0.1:<port>` */
  url: string;
  /** Messages accepted (a 250 reply to DATA), in order. */
  received: ReceivedEmail[];
  /** Messages whose DATA reached the server, accepted or rejected. */
  attempts: number;
  /** Date.now() when each attempt's DATA ended, in order (before the delay and the reply). */
  attemptTimes: number[];
  /** The most DATA phases open at once so far (from the DATA command to the reply). */
  maxConcurrentData: number;
  /**
   * Errors of client connections the server reported (a client that reset
   * its connection in the middle of a message: a killed notifier, a
   * destroyed pool connection). Kept here for a test to read: without a
   * listener, smtp-server's 'error' event would be an uncaught exception
   * in the jest worker, failing whichever test or hook happens to run.
   */
  connectionErrors: Error[];
  setMode(mode: SinkMode): void;
  /** Waits this long after each message's data before replying (a slow provider). */
  setDelay(ms: number): void;
  /** (Re)starts listening on the same port. */
  start(): Promise<void>;
  /** Stops listening and drops open connections (a 421 first): the server is down. */
  stop(): Promise<void>;
  /** Waits until at least `count` messages were accepted. */
  waitForEmails(count: number, timeoutMs?: number): Promise<ReceivedEmail[]>;
}

function addresses(value: AddressObject | AddressObject[] | undefined): string[] {
  const list = value === undefined ? [] : Array.isArray(value) ? value : [value];
  return list.flatMap((a) => a.value.map((v) => v.address ?? ''));
}

/** An accepted message as the tests read it. */
function receivedOf(mail: ParsedMail): ReceivedEmail {
  return {
    from: addresses(mail.from)[0] ?? '',
    to: addresses(mail.to),
    subject: mail.subject ?? '',
    html: mail.html || '',
    text: mail.text ?? '',
    messageId: mail.messageId ?? '',
    headers: mail.headers,
  };
}

/** What the sink's methods set and its SMTP handler reads. */
interface SinkState {
  sink: SmtpSink;
  mode: SinkMode;
  delayMs: number;
  /** DATA phases open now. */
  openData: number;
  server: SMTPServer | undefined;
}

/**
 * One message's DATA: counted when it ends, answered after the delay with the mode it ended under (a
 * rejection, or a 250 once the message parsed and was recorded).
 */
function onData(state: SinkState, stream: SMTPServerDataStream, done: (err?: Error) => void): void {
  const { sink } = state;
  state.openData++;
  sink.maxConcurrentData = Math.max(sink.maxConcurrentData, state.openData);
  const callback = (err?: Error) => {
    state.openData--;
    if (err) done(err);
    else done();
  };
  const chunks: Buffer[] = [];
  const reply = (current: SinkMode) => {
    if (!current.accept) {
      callback(Object.assign(new Error(current.message), { responseCode: current.code }));
      return;
    }
    simpleParser(Buffer.concat(chunks)).then(
      (mail) => {
        sink.received.push(receivedOf(mail));
        callback();
      },
      (err: Error) => callback(err),
    );
  };
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  stream.on('end', () => {
    sink.attempts++;
    sink.attemptTimes.push(Date.now());
    const current = state.mode;
    setTimeout(() => reply(current), state.delayMs);
  });
}

async function listen(state: SinkState): Promise<void> {
  if (state.server) return;
  const instance = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    closeTimeout: 100,
    onData: (stream, _session, done) => onData(state, stream, done),
  });
  instance.on('error', (err: Error) => state.sink.connectionErrors.push(err));
  await new Promise<void>((resolve, reject) => {
    instance.server.once('error', reject);
    instance.listen(state.sink.port, '127.0.0.1', () => resolve());
  });
  state.server = instance;
}

export async function startSmtpSink(options: { started?: boolean } = {}): Promise<SmtpSink> {
  const port = await freePort();
  const sink: SmtpSink = {
    port,
    url: `smtp://127.0.0.1:${port}`,
    received: [],
    attempts: 0,
    attemptTimes: [],
    maxConcurrentData: 0,
    connectionErrors: [],
    setMode(next) {
      state.mode = next;
    },
    setDelay(ms) {
      state.delayMs = ms;
    },
    start: () => listen(state),
    async stop() {
      const instance = state.server;
      state.server = undefined;
      if (instance) await new Promise<void>((resolve) => instance.close(() => resolve()));
    },
    waitForEmails(count, timeoutMs = 30_000) {
      return waitFor(
        () => sink.received.length >= count && sink.received,
        `${count} email(s) at the SMTP sink`,
        timeoutMs,
      );
    },
  };
  const state: SinkState = { sink, mode: { accept: true }, delayMs: 0, openData: 0, server: undefined };
  if (options.started !== false) await sink.start();
  return sink;
}
