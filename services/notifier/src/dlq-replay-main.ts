import { parseArgs } from 'node:util';
import pino from 'pino';
import { connect } from '@nats-io/transport-node';
import { ConfigError, createLogger, EVENT_TYPES, runCommandMain } from '@inventario/platform';
import { loadReplayConfig } from './config';
import { replayDeadLetters } from './events/dead-letter-replay';
import { HANDLERS, type EmailedEventType } from './handlers';

/**
 * `npm run dlq:replay -- --type <EventType>|all [--limit N] [--dry-run]`
 * (in the notifier image: `node dist/dlq-replay-main.js ...`): moves dead
 * letters of that type back to their event subject, oldest first, and
 * deletes them from the dead letters' stream (events/dead-letter-replay.ts
 * states the rule). Reads NATS_URL, NATS_STREAM and NATS_SUBJECT_PREFIX
 * like the notifier, and NATS_USER / NATS_PASSWORD: under the chart's
 * authorization the user `dlq-replay`, the one allowed to publish on the
 * emailed events' subjects and delete letters (docs/contract.md §5.7).
 * Prints one JSON report on stdout; logs go to stderr. Exit codes:
 * 0 done, 2 bad arguments or environment, 1 anything else (NATS
 * unreachable, a publish refused); letters replayed before a failure are
 * reported in the log and gone from the DLQ, the rest stay.
 */

/** The types that can have dead letters: those the notifier emails (a type without a handler never reaches it). */
const REPLAYABLE_TYPES: readonly EmailedEventType[] = HANDLERS.map((h) => h.eventType);

export const USAGE = `usage: dlq-replay --type <${REPLAYABLE_TYPES.join('|')}|all> [--limit N] [--dry-run]`;

export interface ReplayArgs {
  types: EmailedEventType[];
  limit?: number;
  dryRun: boolean;
}

/** Parses the command line; throws an Error whose message says what is wrong. */
export function parseReplayArgs(argv: readonly string[]): ReplayArgs {
  const { values, positionals } = parseArgs({
    args: [...argv],
    options: {
      type: { type: 'string', multiple: true },
      limit: { type: 'string' },
      'dry-run': { type: 'boolean', default: false },
    },
    strict: true,
    allowPositionals: true,
  });
  if (positionals.length > 0) throw new Error(`unexpected argument ${positionals[0]}`);
  const named = values.type ?? [];
  if (named.length === 0) throw new Error('--type is required (an event type, or all)');
  const types = named.includes('all')
    ? [...REPLAYABLE_TYPES]
    : named.map((name) => {
        const type = REPLAYABLE_TYPES.find((t) => t === name);
        if (type) return type;
        const known = (EVENT_TYPES as readonly string[]).includes(name);
        throw new Error(
          known
            ? `--type ${name} has no dead letters: the notifier sends no email for it`
            : `--type ${name} is not an event type`,
        );
      });
  let limit: number | undefined;
  if (values.limit !== undefined) {
    if (!/^[1-9]\d{0,8}$/.test(values.limit)) throw new Error('--limit must be a whole number from 1');
    limit = Number(values.limit);
  }
  return { types: [...new Set(types)], ...(limit !== undefined ? { limit } : {}), dryRun: values['dry-run'] === true };
}

async function main(): Promise<number> {
  let args: ReplayArgs;
  let config;
  try {
    args = parseReplayArgs(process.argv.slice(2));
    config = loadReplayConfig(process.env);
  } catch (err) {
    const problem = err instanceof ConfigError ? err.message : err instanceof Error ? err.message : String(err);
    process.stderr.write(`dlq-replay: ${problem}\n${USAGE}\n`);
    return 2;
  }
  const logger = createLogger('dlq-replay', config.logLevel, pino.destination({ dest: 2, sync: true }));
  // No reconnect loop: a one-off command fails at once when NATS is not there.
  const nc = await connect({
    servers: config.natsUrl.split(','),
    name: 'notifier-dlq-replay',
    ...(config.natsCredentials ? { user: config.natsCredentials.user, pass: config.natsCredentials.pass } : {}),
  });
  try {
    const report = await replayDeadLetters({
      nc,
      stream: config.natsStream,
      prefix: config.natsSubjectPrefix,
      ...args,
      logger,
    });
    process.stdout.write(`${JSON.stringify(report)}\n`);
    return 0;
  } finally {
    await nc.close();
  }
}

if (require.main === module) runCommandMain('dlq-replay', main);
