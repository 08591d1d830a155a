import { connect } from '@nats-io/transport-node';
import { ConfigError, runCommandMain } from '@inventario/platform';
import { loadProvisionConfig } from './config';
import { deadLetterStreamName } from './events/dead-letter';
import { setUpJetStream } from './events/jetstream-setup';

/**
 * `node services/notifier/dist/provision-main.js` (the chart's provisioning
 * Job, and `npm start` before its services): creates or updates the
 * JetStream side of Inventario (events/jetstream-setup.ts): the events'
 * stream, the dead letters' stream and the sent registry's bucket, with the
 * limits of NATS_STREAM_MAX_AGE_HOURS, NATS_STREAM_MAX_BYTES and
 * NATS_DLQ_MAX_BYTES. Under the chart's authorization only its user,
 * `provisioner`, may (docs/contract.md §5.7); the services then only check
 * that the streams exist. Idempotent: a repeat changes nothing. Prints one
 * JSON line (`{"INVENTARIO":"created","INVENTARIO_DLQ":"unchanged"}`); exit
 * codes: 0 done, 2 bad environment, 1 anything else (NATS unreachable, a
 * setting refused).
 */
async function main(): Promise<number> {
  let config;
  try {
    config = loadProvisionConfig(process.env);
  } catch (err) {
    process.stderr.write(
      `provision: ${err instanceof ConfigError || err instanceof Error ? err.message : String(err)}\n`,
    );
    return 2;
  }
  // No reconnect loop: a Job that cannot reach NATS fails and is retried by Kubernetes.
  const nc = await connect({
    servers: config.natsUrl.split(','),
    name: 'inventario-provision',
    ...(config.natsCredentials ? { user: config.natsCredentials.user, pass: config.natsCredentials.pass } : {}),
  });
  try {
    const { stream } = config.jetStream;
    const setup = await setUpJetStream(nc, config.jetStream);
    // This user must be able to apply every setting: a refusal is a failure here.
    for (const outcome of [setup.events, setup.deadLetters]) {
      if (outcome.outcome === 'not-permitted')
        throw new Error(`this NATS user may not update the streams (${outcome.differences.join(', ')} differ)`);
    }
    const outcomes = { [stream]: setup.events.outcome, [deadLetterStreamName(stream)]: setup.deadLetters.outcome };
    process.stdout.write(`${JSON.stringify(outcomes)}\n`);
    return 0;
  } finally {
    await nc.close();
  }
}

if (require.main === module) runCommandMain('provision', main);
