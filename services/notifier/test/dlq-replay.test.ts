/**
 * The dead-letter replay command (`npm run dlq:replay`, the built
 * dist/dlq-replay-main.js run as a process): letters go back to their event
 * subject, oldest first, within --type and --limit, are deleted from the
 * DLQ, and each replayed event is emailed exactly once, also when it had
 * been emailed before it was dead-lettered, and also when a run repeats.
 */
import { headers as natsHeaders } from '@nats-io/transport-node';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { runCommand, serviceMain, waitFor, type CommandResult } from '@inventario/testkit';
import { DEAD_LETTER_HEADERS } from '../src/events/dead-letter';
import { REPLAYED_FROM_HEADER, type ReplayReport } from '../src/events/dead-letter-replay';
import { parseReplayArgs } from '../src/dlq-replay-main';
import { sampleEnvelope } from '../src/sample-events';
import { startTestNotifier, type TestNotifier } from './support/test-notifier';

const MAIN = serviceMain('notifier', 'dlq-replay-main.js');

function runReplay(t: TestNotifier, args: string[]): Promise<CommandResult> {
  return runCommand('dlq-replay', [MAIN, ...args], {
    NATS_URL: t.events.natsUrl,
    NATS_STREAM: t.events.namespace.stream,
    NATS_SUBJECT_PREFIX: t.events.namespace.prefix,
  });
}

async function replay(t: TestNotifier, args: string[]): Promise<ReplayReport> {
  const result = await runReplay(t, args);
  expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
  return JSON.parse(result.stdout) as ReplayReport;
}

function emailedIds(t: TestNotifier): (string | undefined)[] {
  return t.sink.received.map((e) => e.headers.get('x-inventario-event-id') as string | undefined);
}

describe('dlq:replay', () => {
  let t: TestNotifier;
  const rejected = [1, 2, 3].map((id) => sampleEnvelope('ProductoCreado', { id }));
  const otherType = sampleEnvelope('BodegaCreada', { id: 9 });

  beforeAll(async () => {
    t = await startTestNotifier({ NOTIFIER_MAX_DELIVER: '3' });
    // A mailbox that does not exist (550): each event is dead-lettered after one attempt.
    t.sink.setMode({ accept: false, code: 550, message: 'Buzón inexistente' });
    // With the event id as Nats-Msg-Id, as the services' outbox publishes: a
    // copy under the same id would be dropped by the stream as a repeat.
    for (const envelope of rejected) await t.events.publish('ProductoCreado', envelope, { msgID: envelope.id });
    await t.events.publish('BodegaCreada', otherType, { msgID: otherType.id });
    await waitFor(async () => (await t.events.deadLetters()).length === 4, 'four dead letters', 30_000);
    t.sink.setMode({ accept: true });
  });

  afterAll(async () => {
    await t?.close();
  });

  it('--dry-run lists the letters of the type and changes nothing', async () => {
    const report = await replay(t, ['--type', 'ProductoCreado', '--dry-run']);
    expect(report).toMatchObject({ dryRun: true, remaining: 3 });
    expect(report.replayed.map((r) => [r.type, r.eventId, r.seq])).toEqual(
      rejected.map((e) => ['ProductoCreado', e.id, null]),
    );
    expect(report.replayed[0]?.reason).toMatch(/550/);
    expect(await t.events.deadLetters()).toHaveLength(4);
  });

  it('moves the oldest --limit letters of --type back; each is emailed once and leaves the DLQ', async () => {
    const report = await replay(t, ['--type', 'ProductoCreado', '--limit', '2']);
    expect(report.replayed.map((r) => r.eventId)).toEqual([rejected[0]?.id, rejected[1]?.id]);
    expect(report.remaining).toBe(1);
    const lastCopy = Math.max(...report.replayed.map((r) => r.seq ?? 0));
    await t.events.processedThrough('ProductoCreatedHandler', lastCopy);

    expect(emailedIds(t)).toEqual([rejected[0]?.id, rejected[1]?.id]);
    const left = await t.events.deadLetters();
    // Letters of different types are stored by different consumers, in no fixed order between them.
    expect(left.map((l) => l.headers[DEAD_LETTER_HEADERS.eventId]).sort()).toEqual(
      [rejected[2]?.id, otherType.id].sort(),
    );
    expect(await t.events.sentEntry(rejected[0]?.id ?? '')).toMatchObject({ state: 'sent' });
  });

  it('publishes the copy with the original body on the event subject, under a Nats-Msg-Id of its own', async () => {
    const report = await replay(t, ['--type', 'ProductoCreado']);
    expect(report).toMatchObject({ dryRun: false, remaining: 0, replayed: [{ eventId: rejected[2]?.id }] });
    const [copy] = report.replayed;
    const stored = await (
      await jetstreamManager(t.events.nc)
    ).streams.getMessage(t.events.namespace.stream, { seq: copy?.seq ?? 0 });
    expect(stored?.subject).toBe(`${t.events.namespace.prefix}.producto.creado`);
    expect(stored?.string()).toBe(JSON.stringify(rejected[2]));
    expect(stored?.header?.get('Nats-Msg-Id')).toBe(`replay:${t.events.namespace.stream}_DLQ:${copy?.deadLetterSeq}`);
    expect(stored?.header?.get(REPLAYED_FROM_HEADER)).toBe(String(copy?.deadLetterSeq));
    await t.events.processedThrough('ProductoCreatedHandler', copy?.seq ?? 0);
    expect(emailedIds(t)).toEqual(rejected.map((e) => e.id));

    // Nothing of that type is left; the other type's letter is untouched.
    expect(await replay(t, ['--type', 'ProductoCreado'])).toEqual({ dryRun: false, replayed: [], remaining: 0 });
    expect((await t.events.deadLetters()).map((l) => l.headers[DEAD_LETTER_HEADERS.eventId])).toEqual([otherType.id]);
  });

  it('does not email again an event that was emailed before its letter was written, and empties the DLQ with --type all', async () => {
    // As MaxDeliveriesHandler writes one while the sent registry is unreachable:
    // a letter for an event the registry says was sent.
    const emailed = rejected[0];
    const h = natsHeaders();
    h.set(DEAD_LETTER_HEADERS.reason, 'max deliveries reached');
    h.set(DEAD_LETTER_HEADERS.eventId, emailed?.id ?? '');
    await jetstream(t.events.nc).publish(`${t.events.namespace.prefix}_dlq.producto.creado`, JSON.stringify(emailed), {
      headers: h,
    });
    const before = t.sink.received.length;

    const report = await replay(t, ['--type', 'all']);
    expect(report.replayed.map((r) => [r.type, r.eventId])).toEqual([
      ['ProductoCreado', emailed?.id],
      ['BodegaCreada', otherType.id],
    ]);
    for (const copy of report.replayed)
      await t.events.processedThrough(
        copy.type === 'ProductoCreado' ? 'ProductoCreatedHandler' : 'BodegaCreatedHandler',
        copy.seq ?? 0,
      );
    expect(emailedIds(t).slice(before)).toEqual([otherType.id]);
    expect(await t.events.deadLetters()).toEqual([]);
  });

  it('refuses bad arguments with exit code 2 and the usage, touching nothing', async () => {
    const result = await runReplay(t, ['--type', 'ProductoCreada']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/--type ProductoCreada is not an event type\nusage: dlq-replay --type </);
  });
});

describe('dlq:replay arguments', () => {
  it.each([
    [['--type', 'ProductoCreado'], { types: ['ProductoCreado'], dryRun: false }],
    [
      ['--type', 'BodegaEliminada', '--type', 'ProductoCreado', '--limit', '10'],
      { types: ['BodegaEliminada', 'ProductoCreado'], limit: 10, dryRun: false },
    ],
    [['--type', 'StockBajo'], { types: ['StockBajo'], dryRun: false }],
    [['--type', 'ReservaDescubierta'], { types: ['ReservaDescubierta'], dryRun: false }],
    [
      ['--type', 'all', '--dry-run'],
      {
        types: [
          'ProductoCreado',
          'ProductoActualizado',
          'ProductoEliminado',
          'BodegaCreada',
          'BodegaActualizada',
          'BodegaEliminada',
          'StockBajo',
          'ReservaDescubierta',
        ],
        dryRun: true,
      },
    ],
  ])('reads %j', (argv, expected) => {
    expect(parseReplayArgs(argv)).toEqual(expected);
  });

  it.each([
    [[], '--type is required (an event type, or all)'],
    [['--type', 'producto.creado'], '--type producto.creado is not an event type'],
    [
      ['--type', 'MovimientoRegistrado'],
      '--type MovimientoRegistrado has no dead letters: the notifier sends no email for it',
    ],
    [['--type', 'StockRepuesto'], '--type StockRepuesto has no dead letters: the notifier sends no email for it'],
    [['--type', 'ProductoCreado', '--limit', '0'], '--limit must be a whole number from 1'],
    [['--type', 'ProductoCreado', '--limit', '2.5'], '--limit must be a whole number from 1'],
    [['--type', 'ProductoCreado', 'extra'], 'unexpected argument extra'],
  ])('refuses %j', (argv, message) => {
    expect(() => parseReplayArgs(argv)).toThrow(message);
  });

  it('refuses an unknown option', () => {
    expect(() => parseReplayArgs(['--type', 'ProductoCreado', '--force'])).toThrow(/--force/);
  });
});
