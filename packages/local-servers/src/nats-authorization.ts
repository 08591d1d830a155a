/**
 * The NATS users of Inventario and what each may do (docs/contract.md §5.7):
 * the one source of the Helm chart's authorization (values.yaml
 * `nats.config.merge`, written by `npm run chart:nats-authorization`) and of
 * the private NATS that `npm start` runs (dev-launcher). A test renders the
 * block on a real nats-server and proves every refusal and every service's
 * work as its user (test/deploy/nats-permissions.test.ts).
 *
 * Least privilege by JetStream API subject: a runtime user reads the stream's
 * info and creates, reads and pulls only the durable consumers it owns (their
 * names are in the subjects); no runtime user creates, updates, deletes or
 * purges a stream, or deletes a message. The streams and the notifier's KV
 * bucket are created and updated by `provisioner` alone (the chart's
 * provisioning Job). The BFF's read cache creates consumers of its own
 * choosing (one per replica, random names): it may create, read, pull and
 * delete any consumer of the stream except the durables of this table,
 * which are denied to it by name (NATS matches whole tokens only, so names
 * it may use cannot be allowed by prefix).
 */

/** Where the rights point: the chart's defaults are `INVENTARIO` and `inventario`. */
export interface NatsAuthorizationTarget {
  /** NATS_STREAM: the events' stream. */
  stream: string;
  /** NATS_SUBJECT_PREFIX. */
  prefix: string;
  /** NOTIFIER_SENT_BUCKET: the notifier's sent registry (KV bucket). */
  sentBucket: string;
}

export const CHART_TARGET: NatsAuthorizationTarget = {
  stream: 'INVENTARIO',
  prefix: 'inventario',
  sentBucket: 'notifier-sent',
};

/** The stream that keeps dead letters until they are replayed (docs/contract.md §6.4): `<stream>_DLQ`. */
export function deadLetterStreamName(stream: string): string {
  return `${stream}_DLQ`;
}

/** The JetStream stream behind a KV bucket. */
function kvStreamName(bucket: string): string {
  return `KV_${bucket}`;
}

/** One user: the rights of its role, in the terms of the code that uses them. */
interface UserSpec {
  user: string;
  /**
   * The variable the NATS server reads the password from; the chart maps it from the Secret key `<user>-nats-password`.
   */
  passwordVariable: string;
  /** Subjects it publishes (events, dead letters, KV writes). */
  publishes(t: NatsAuthorizationTarget): string[];
  /**
   * Durable consumers of the events' stream it owns: it creates them (and
   * brings their settings in line), reads their info, pulls and acks.
   * Adding a consumer to a service is one line here.
   */
  durables: readonly string[];
  /** JetStream API subjects beyond the account info, the stream's info and its durables. */
  api(t: NatsAuthorizationTarget): string[];
  /** Subjects it subscribes to besides its inboxes. */
  subscribes(t: NatsAuthorizationTarget): string[];
}

/** The emailed event types' subjects, where a dead letter's replay publishes it again (contract §6.4). */
const EMAILED_EVENTS = [
  'producto.creado',
  'producto.actualizado',
  'producto.eliminado',
  'bodega.creada',
  'bodega.actualizada',
  'bodega.eliminada',
  'stock.bajo',
  'reserva.descubierta',
] as const;

/**
 * The notifier's durable consumers: one per emailed event type, and the max-deliveries advisories'
 * (services/notifier/src/handlers, events/max-deliveries.ts).
 */
const NOTIFIER_DURABLES = [
  'ProductoCreatedHandler',
  'ProductoUpdatedHandler',
  'ProductoDeletedHandler',
  'BodegaCreatedHandler',
  'BodegaUpdatedHandler',
  'BodegaDeletedHandler',
  'StockBajoHandler',
  'ReservaDescubiertaHandler',
  'MaxDeliveriesHandler',
] as const;

const RUNTIME_USERS: readonly UserSpec[] = [
  {
    user: 'producto-svc',
    passwordVariable: 'PRODUCTO_SVC_NATS_PASSWORD',
    publishes: (t) => [`${t.prefix}.producto.>`],
    durables: ['producto-svc-bodega-eliminada'],
    api: () => [],
    subscribes: () => [],
  },
  {
    user: 'bodega-svc',
    passwordVariable: 'BODEGA_SVC_NATS_PASSWORD',
    // Warehouses, the ledger's operations, the stock thresholds and the reservations (docs/contract.md §13.4).
    publishes: (t) => [
      `${t.prefix}.bodega.>`,
      `${t.prefix}.movimiento.>`,
      `${t.prefix}.stock.>`,
      `${t.prefix}.reserva.>`,
    ],
    // The deleted products' write-out, and the known products' projection.
    durables: ['bodega-svc-producto-eliminado', 'bodega-svc-producto-creado'],
    api: () => [],
    subscribes: () => [],
  },
  {
    user: 'identidad-svc',
    passwordVariable: 'IDENTIDAD_SVC_NATS_PASSWORD',
    // Its events (users, tokens) and the audit trail's anchors (docs/contract.md §12).
    publishes: (t) => [`${t.prefix}.identidad.>`, `${t.prefix}.auditoria.>`],
    // The audit trail follows the whole stream.
    durables: ['identidad-svc-auditoria'],
    // The anchor check reads the last anchor by subject.
    api: (t) => [`$JS.API.STREAM.MSG.GET.${t.stream}`],
    subscribes: () => [],
  },
  {
    user: 'notifier',
    passwordVariable: 'NOTIFIER_NATS_PASSWORD',
    // No event subject: dead letters (their own root, `<prefix>_dlq`), and its sent registry's keys.
    publishes: (t) => [`${t.prefix}_dlq.>`, `$KV.${t.sentBucket}.>`],
    durables: NOTIFIER_DURABLES,
    api: (t) => [
      // MaxDeliveriesHandler reads the event whose deliveries ran out; the
      // letters older releases left among the events are copied at start.
      `$JS.API.STREAM.MSG.GET.${t.stream}`,
      // The dead letters' stream: checked at start, and its fullness sampled.
      `$JS.API.STREAM.INFO.${deadLetterStreamName(t.stream)}`,
      // The sent registry: opened, and read key by key.
      `$JS.API.STREAM.INFO.${kvStreamName(t.sentBucket)}`,
      `$JS.API.STREAM.MSG.GET.${kvStreamName(t.sentBucket)}`,
      `$JS.API.DIRECT.GET.${kvStreamName(t.sentBucket)}.>`,
    ],
    // JetStream's deletion advisories of its consumers and of the stream: it re-creates a lost consumer at once
    // (consumer-runner.ts).
    subscribes: (t) => [
      ...NOTIFIER_DURABLES.map((durable) => `$JS.EVENT.ADVISORY.CONSUMER.DELETED.${t.stream}.${durable}`),
      `$JS.EVENT.ADVISORY.STREAM.DELETED.${t.stream}`,
    ],
  },
];

/** Every durable consumer name of the runtime users: denied to the BFF, whose consumers are its own. */
export function ownedDurables(): string[] {
  return RUNTIME_USERS.flatMap((u) => [...u.durables]);
}

/**
 * The rights to run durable consumer `durable` of `stream`: create or update it (with or without a filter in the
 * subject), info, pull, ack.
 */
function durableRights(stream: string, durable: string): string[] {
  return [
    `$JS.API.CONSUMER.CREATE.${stream}.${durable}`,
    `$JS.API.CONSUMER.CREATE.${stream}.${durable}.>`,
    `$JS.API.CONSUMER.INFO.${stream}.${durable}`,
    `$JS.API.CONSUMER.MSG.NEXT.${stream}.${durable}`,
    `$JS.ACK.${stream}.${durable}.>`,
  ];
}

/** What the server's authorization block holds for one user (nats-server's `authorization.users[]`). */
export interface NatsUserEntry {
  user: string;
  password: string;
  permissions: {
    publish: { allow: string[]; deny?: string[] };
    subscribe: { allow: string[] };
  };
}

/** Replies of requests (the JetStream API, publish acks) come back on the client's inbox. */
const REPLIES = { allow: ['_INBOX.>'] };

/**
 * Every user with its rights for `target`; `password(variable)` writes the
 * password entry (the chart's `<< $VAR >>`, nats.conf's `$VAR`). A table, one entry per user, so every right
 * granted on the stream reads in one place.
 */
export function natsUsers(target: NatsAuthorizationTarget, password: (variable: string) => string): NatsUserEntry[] {
  const { stream, prefix } = target;
  const dlqStream = deadLetterStreamName(stream);
  const runtime = RUNTIME_USERS.map((u): NatsUserEntry => ({
    user: u.user,
    password: password(u.passwordVariable),
    permissions: {
      publish: {
        allow: [
          ...u.publishes(target),
          '$JS.API.INFO',
          `$JS.API.STREAM.INFO.${stream}`,
          ...u.durables.flatMap((durable) => durableRights(stream, durable)),
          ...u.api(target),
        ],
      },
      subscribe: { allow: [...REPLIES.allow, ...u.subscribes(target)] },
    },
  }));
  const bff: NatsUserEntry = {
    user: 'bff',
    password: password('BFF_NATS_PASSWORD'),
    permissions: {
      publish: {
        // Its read cache's consumers (services/bff/src/cache/event-follower.ts):
        // named by the BFF in the subject, filtered on `<prefix>.>`, no acks;
        // created, confirmed, pulled and deleted when the subscription ends.
        allow: [
          '$JS.API.INFO',
          `$JS.API.CONSUMER.CREATE.${stream}.*.${prefix}.>`,
          `$JS.API.CONSUMER.INFO.${stream}.*`,
          `$JS.API.CONSUMER.MSG.NEXT.${stream}.*`,
          `$JS.API.CONSUMER.DELETE.${stream}.*`,
        ],
        // Never another user's durable: not re-created with other settings, read, pulled from or deleted.
        deny: ownedDurables().flatMap((durable) => [
          `$JS.API.CONSUMER.*.${stream}.${durable}`,
          `$JS.API.CONSUMER.*.${stream}.${durable}.>`,
          `$JS.API.CONSUMER.MSG.NEXT.${stream}.${durable}`,
        ]),
      },
      subscribe: REPLIES,
    },
  };
  // Operators' identities, used by no running service.
  const provisioner: NatsUserEntry = {
    user: 'provisioner',
    password: password('PROVISIONER_NATS_PASSWORD'),
    permissions: {
      publish: {
        // Creates and updates the streams and the KV bucket (the chart's
        // provisioning Job, `node services/notifier/dist/provision-main.js`);
        // never deletes or purges them, nor touches a message or a consumer.
        allow: [
          '$JS.API.INFO',
          ...[stream, dlqStream, kvStreamName(target.sentBucket)].flatMap((name) => [
            `$JS.API.STREAM.CREATE.${name}`,
            `$JS.API.STREAM.UPDATE.${name}`,
            `$JS.API.STREAM.INFO.${name}`,
          ]),
        ],
      },
      subscribe: REPLIES,
    },
  };
  const dlqReplay: NatsUserEntry = {
    user: 'dlq-replay',
    password: password('DLQ_REPLAY_NATS_PASSWORD'),
    permissions: {
      publish: {
        // `npm run dlq:replay`: reads the dead letters, publishes each again
        // on its emailed event's subject, then deletes it from the dead
        // letters' stream (and only there).
        allow: [
          ...EMAILED_EVENTS.map((event) => `${prefix}.${event}`),
          '$JS.API.INFO',
          `$JS.API.STREAM.INFO.${dlqStream}`,
          `$JS.API.STREAM.MSG.GET.${dlqStream}`,
          `$JS.API.STREAM.MSG.DELETE.${dlqStream}`,
        ],
      },
      subscribe: REPLIES,
    },
  };
  return [...runtime, bff, provisioner, dlqReplay];
}

/** The password variable of each user, e.g. `producto-svc` → `PRODUCTO_SVC_NATS_PASSWORD`. */
export function natsPasswordVariables(): Record<string, string> {
  const variables: Record<string, string> = {};
  for (const entry of natsUsers(CHART_TARGET, (variable) => variable)) variables[entry.user] = entry.password;
  return variables;
}

/**
 * nats-server configuration text with the users' authorization, each
 * password read from the server's environment (`$VAR`): give the server the
 * variables natsPasswordVariables() names. `extraUsers` are appended as
 * written (a test's inspector).
 */
export function natsServerAuthorization(target: NatsAuthorizationTarget, extraUsers: NatsUserEntry[] = []): string {
  const users = [...natsUsers(target, (variable) => `<< $${variable} >>`), ...extraUsers];
  // nats.conf reads JSON; an unquoted $VAR is a reference to the environment.
  return `authorization: ${JSON.stringify({ users }, null, 2)}\n`.replace(/"<< (\$[A-Z0-9_]+) >>"/g, '$1');
}

/**
 * values.yaml's `nats.config.merge` block for the chart's defaults, as YAML
 * lines indented for their place (`nats.config`), `<< $VAR >>` being the nats
 * chart's unquoted value (the server reads the password from its
 * environment, mapped from the Secret).
 */
export function chartAuthorizationYaml(indent = '    '): string[] {
  const list = (values: string[], at: string) => values.map((value) => `${at}- ${JSON.stringify(value)}`);
  const lines = ['merge:', '  authorization:', '    users:'];
  for (const entry of natsUsers(CHART_TARGET, (variable) => `<< $${variable} >>`)) {
    const { publish, subscribe } = entry.permissions;
    lines.push(
      `      - user: ${entry.user}`,
      `        password: ${entry.password}`,
      '        permissions:',
      '          publish:',
      '            allow:',
    );
    lines.push(...list(publish.allow, '              '));
    if (publish.deny) lines.push('            deny:', ...list(publish.deny, '              '));
    lines.push('          subscribe:');
    if (subscribe.allow.length === 1) lines.push(`            allow: [${JSON.stringify(subscribe.allow[0])}]`);
    else lines.push('            allow:', ...list(subscribe.allow, '              '));
  }
  return lines.map((line) => `${indent}${line}`);
}
