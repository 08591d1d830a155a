/**
 * Property-based test of safe writes over the real stack: fast-check
 * generates short programs of REST writes and runs them in concurrent
 * batches against the BFF, producto-svc and MariaDB:
 *
 * - keyed creates (a key from a small pool, a body from a small pool, so a
 *   key comes back with the same body or another one), unkeyed creates;
 * - updates of two products, keyed or not, with a current or stale If-Match
 *   or none.
 *
 * After every batch the answers so far and the rows in SQL must agree:
 * a key never created more than one product (each keyed create's nombre
 * encodes its key and body, so rows are counted per key in SQL), every 2xx
 * for a key is byte for byte the first one, a key sent with another body got
 * 422 (or 409 while a request with the same key ran) and created nothing,
 * 409 IDEMPOTENCY_KEY_IN_USE only while another request with the key was in
 * flight, no two executed updates expected the same version, and each
 * product's version in SQL is 1 + its executed (not replayed) updates.
 * At the end every product has exactly one ProductoCreado and version - 1
 * ProductoActualizado events.
 *
 * A fixed seed (FUZZ_SEED overrides it) makes a failure reproducible; it is
 * printed at the start.
 */
import fc from 'fast-check';
import { eventName, startSafeWriteStack, type SafeWriteStack } from './support/safe-write-stack';
import type { StackResponse } from './support/stack';

const SEED = Number(process.env.FUZZ_SEED ?? 20261125);
const RUNS = 30;
const MAX_COMMANDS = 12;
/** Keys and bodies per run: small, so they collide. */
const KEYS = 3;
const BODIES = 2;
const TARGETS = 2;

/** This execution's tag: keys and names never meet those of an earlier execution. */
const TAG = Date.now().toString(36);

let stack: SafeWriteStack;

beforeAll(async () => {
  process.stdout.write(`safe-writes-property: fast-check seed ${SEED} (set FUZZ_SEED to replay another)\n`);
  stack = await startSafeWriteStack('bff_safe_writes_prop');
}, 60_000);

afterAll(async () => {
  await stack?.close();
});

type IfMatchMode = 'current' | 'stale' | 'none';
type Command =
  | { kind: 'keyedCreate'; key: number; body: number }
  | { kind: 'create' }
  /** `body` picks both the product and the stock written, so a key comes back with the same request or another. */
  | { kind: 'update'; body: number; key: number | null; ifMatch: IfMatchMode };

const command: fc.Arbitrary<Command> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('keyedCreate' as const),
      key: fc.nat(KEYS - 1),
      body: fc.nat(BODIES - 1),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('create' as const) }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('update' as const),
      body: fc.nat(BODIES * TARGETS - 1),
      key: fc.option(fc.nat(KEYS - 1), { nil: null }),
      ifMatch: fc.oneof(
        { weight: 2, arbitrary: fc.constant<IfMatchMode>('none') },
        fc.constantFrom<IfMatchMode>('current', 'stale'),
      ),
    }),
  },
);

/** Commands, and how many of them each concurrent batch takes in turn. */
const program = fc.record({
  commands: fc.array(command, { minLength: 1, maxLength: MAX_COMMANDS }),
  batchSizes: fc.array(fc.integer({ min: 1, max: 6 }), { minLength: MAX_COMMANDS, maxLength: MAX_COMMANDS }),
});

function batchesOf<T>(items: T[], sizes: number[]): T[][] {
  const out: T[][] = [];
  let i = 0;
  for (const size of sizes) {
    if (i >= items.length) break;
    out.push(items.slice(i, i + size));
    i += size;
  }
  if (i < items.length) out.push(items.slice(i));
  return out;
}

/** One request sent and what it got. */
interface Sent {
  batch: number;
  kind: Command['kind'];
  /** `c<key>` or `u<key>` (the pool of creates and of updates are distinct gRPC methods), or null. */
  key: string | null;
  /** What the request asked, without its key: equal descriptors are the same request. */
  descriptor: string;
  /** Product id of an update. */
  target?: number;
  /** If-Match version of an update, when it sent one. */
  expected?: number;
  /** nombre of a create. */
  nombre?: string;
  status: number;
  replayed: boolean;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- REST JSON read field by field
  body: any;
}

const ALLOWED: Record<Command['kind'], number[]> = {
  keyedCreate: [201, 409, 422],
  create: [201],
  update: [200, 409, 412, 422],
};

/** Every problem with the answers so far against SQL; [] when none. */
async function problems(run: number, targets: number[], sent: Sent[]): Promise<string[]> {
  const out: string[] = [];
  for (const s of sent) {
    if (!ALLOWED[s.kind].includes(s.status))
      out.push(`${s.kind} ${s.descriptor} answered ${s.status}: ${s.text.slice(0, 200)}`);
    if (s.key === null && (s.status === 409 || s.status === 422 || s.replayed))
      out.push(`unkeyed ${s.descriptor} answered ${s.status} replayed=${s.replayed}`);
    if (s.status === 409 && s.body?.error !== 'IDEMPOTENCY_KEY_IN_USE')
      out.push(`409 for ${s.descriptor} is ${s.text}`);
    if (s.status === 422 && s.body?.error !== 'IDEMPOTENCY_KEY_REUSED')
      out.push(`422 for ${s.descriptor} is ${s.text}`);
  }

  // Per key: one execution at most, every 2xx the same bytes for the same request, the rest refused.
  const keys = new Set(sent.flatMap((s) => (s.key === null ? [] : [s.key])));
  for (const k of keys) {
    const withKey = sent.filter((s) => s.key === k);
    const ok = withKey.filter((s) => s.status < 300);
    const executed = ok.filter((s) => !s.replayed);
    if (ok.length > 0 && executed.length !== 1)
      out.push(`key ${k}: ${ok.length} 2xx of which ${executed.length} executed (want exactly 1)`);
    const first = executed[0] ?? ok[0];
    for (const s of ok) {
      if (first && s.text !== first.text)
        out.push(`key ${k}: a 2xx differs from the first: ${s.text} vs ${first.text}`);
      if (first && s.descriptor !== first.descriptor)
        out.push(`key ${k}: 2xx for two requests, ${s.descriptor} and ${first.descriptor}`);
    }
    for (const s of withKey) {
      const peers = withKey.filter((p) => p !== s && p.batch === s.batch).length;
      if (s.status === 409 && peers === 0)
        out.push(`key ${k}: 409 IN_USE in batch ${s.batch} with no other request of the key in flight`);
      if (first && s.descriptor !== first.descriptor) {
        // Another request: refused once the first has committed; before that only its own failure (412) can precede it.
        const later = s.batch > first.batch;
        const allowed = later ? [409, 422] : [409, 412, 422];
        if (!allowed.includes(s.status))
          out.push(`key ${k}: another request (${s.descriptor}) in batch ${s.batch} answered ${s.status}`);
        if (later && s.status === 409 && peers === 0) out.push(`key ${k}: 409 without a peer`);
      }
      if (
        first &&
        s.descriptor === first.descriptor &&
        s.batch > first.batch &&
        s.status !== 409 &&
        !(s.status < 300 && s.replayed)
      ) {
        out.push(
          `key ${k}: a repeat of ${s.descriptor} in batch ${s.batch} answered ${s.status} replayed=${s.replayed} instead of a replay`,
        );
      }
    }
    // Rows of a create key, in SQL: the nombre `... k<n> b<m>` encodes key and body.
    if (k.startsWith('c')) {
      const rows = (await stack
        .productoDb('productos')
        .select('id', 'nombre')
        .where('nombre', 'like', `PK ${TAG} r${run} ${k} %`)) as {
        id: number;
        nombre: string;
      }[];
      if (rows.length !== executed.length)
        out.push(
          `key ${k}: ${rows.length} rows in SQL for ${executed.length} executed creates: ${JSON.stringify(rows)}`,
        );
      if (first && rows.length === 1 && (rows[0]!.nombre !== first.nombre || Number(rows[0]!.id) !== first.body.id)) {
        out.push(`key ${k}: the row ${JSON.stringify(rows[0])} is not the created ${first.text}`);
      }
    }
  }

  // Unkeyed creates: one row each.
  for (const s of sent.filter((c) => c.kind === 'create' && c.status === 201)) {
    const n = await stack.productoDb('productos').where({ nombre: s.nombre }).count({ n: '*' });
    if (Number(n[0]?.n) !== 1) out.push(`unkeyed create ${s.nombre}: ${JSON.stringify(n)} rows`);
  }

  // Updates: version = 1 + executed updates; no two executed updates expected the same version.
  for (const target of targets) {
    const executed = sent.filter((s) => s.kind === 'update' && s.target === target && s.status === 200 && !s.replayed);
    const row = (await stack.productoDb('productos').select('version').where({ id: target }).first()) as
      { version: number } | undefined;
    if (Number(row?.version) !== 1 + executed.length)
      out.push(`product ${target}: version ${row?.version} in SQL after ${executed.length} executed updates`);
    const versions = executed.map((s) => s.body.version as number);
    if (new Set(versions).size !== versions.length)
      out.push(`product ${target}: two executed updates answered one version: ${versions.join(',')}`);
    const expected = executed.flatMap((s) => (s.expected === undefined ? [] : [s.expected]));
    if (new Set(expected).size !== expected.length)
      out.push(`product ${target}: two executed updates expected one version: ${expected.join(',')}`);
    for (const s of executed)
      if (s.expected !== undefined && s.body.version !== s.expected + 1)
        out.push(`product ${target}: If-Match ${s.expected} became ${s.body.version}`);
  }
  return out;
}

let runs = 0;
const statuses = new Map<string, number>();

test(`${RUNS} random programs of concurrent keyed and unkeyed writes: never a duplicate, never a lost or doubled update`, async () => {
  await fc.assert(
    fc.asyncProperty(program, async ({ commands, batchSizes }) => {
      const run = ++runs;
      const targets: number[] = [];
      for (let t = 0; t < TARGETS; t++) {
        const res = await stack.request('POST', '/api/productos', {
          body: { nombre: `PT ${TAG} r${run} t${t}`, precio: 1, cantidadEnStock: 5 },
        });
        expect(res.status).toBe(201);
        targets.push(res.body.id as number);
      }
      const sent: Sent[] = [];
      let unkeyed = 0;
      const batches = batchesOf(commands, batchSizes);
      for (const [batch, cmds] of batches.entries()) {
        // If-Match values come from SQL as the batch starts: "current" is current then.
        const versions = new Map<number, number>();
        for (const id of targets) {
          const row = (await stack.productoDb('productos').select('version').where({ id }).first()) as {
            version: number;
          };
          versions.set(id, Number(row.version));
        }
        const answers = await Promise.all(
          cmds.map(async (cmd): Promise<Sent> => {
            let res: StackResponse;
            let sentOne: Omit<Sent, 'status' | 'replayed' | 'text' | 'body'>;
            if (cmd.kind === 'update') {
              const target = targets[cmd.body % TARGETS]!;
              const current = versions.get(target)!;
              const expected = cmd.ifMatch === 'current' ? current : cmd.ifMatch === 'stale' ? current - 1 : undefined;
              const headers: Record<string, string> = {};
              if (expected !== undefined) headers['if-match'] = `"${expected}"`;
              const key = cmd.key === null ? null : `u${cmd.key}`;
              if (key !== null) headers['idempotency-key'] = `${TAG}-r${run}-${key}`;
              const stock = 10 + Math.floor(cmd.body / TARGETS);
              sentOne = {
                batch,
                kind: 'update',
                key,
                descriptor: `PUT ${target} stock=${stock} if-match=${expected ?? '-'}`,
                target,
                expected,
              };
              res = await stack.request('PUT', `/api/productos/${target}`, {
                body: { cantidadEnStock: stock },
                headers,
              });
            } else if (cmd.kind === 'keyedCreate') {
              const key = `c${cmd.key}`;
              const nombre = `PK ${TAG} r${run} ${key} b${cmd.body}`;
              sentOne = { batch, kind: 'keyedCreate', key, descriptor: `POST ${nombre}`, nombre };
              res = await stack.request('POST', '/api/productos', {
                body: { nombre, precio: 2 + cmd.body, cantidadEnStock: 1 },
                headers: { 'idempotency-key': `${TAG}-r${run}-${key}` },
              });
            } else {
              const nombre = `PU ${TAG} r${run} n${++unkeyed}`;
              sentOne = { batch, kind: 'create', key: null, descriptor: `POST ${nombre}`, nombre };
              res = await stack.request('POST', '/api/productos', { body: { nombre, precio: 1, cantidadEnStock: 1 } });
            }
            const label = `${cmd.kind} ${res.status}${res.headers.get('idempotent-replayed') === 'true' ? ' replay' : ''}`;
            statuses.set(label, (statuses.get(label) ?? 0) + 1);
            return {
              ...sentOne,
              status: res.status,
              replayed: res.headers.get('idempotent-replayed') === 'true',
              text: res.text,
              body: res.body,
            };
          }),
        );
        sent.push(...answers);
        const found = await problems(run, targets, sent);
        if (found.length > 0) {
          throw new Error(
            `run ${run}, after batch ${batch} of ${batches.length}:\n${found.join('\n')}\nsent: ${JSON.stringify(sent.map(({ text: _t, body: _b, ...s }) => s))}`,
          );
        }
      }
    }),
    { seed: SEED, numRuns: RUNS, endOnFailure: true },
  );
  expect(runs).toBe(RUNS);
  const summary = [...statuses].sort(([a], [b]) => a.localeCompare(b)).map(([label, n]) => `${label}: ${n}`);
  process.stdout.write(`safe-writes-property: ${RUNS} runs; answers ${summary.join(', ')}\n`);
}, 120_000);

test('every product of the programs has one ProductoCreado and (version - 1) ProductoActualizado events', async () => {
  const rows = (await stack.productoDb('productos').select('id', 'version').where('nombre', 'like', `P_ ${TAG} %`)) as {
    id: number;
    version: number;
  }[];
  expect(rows.length).toBeGreaterThan(RUNS * 2);
  const events = await stack.settledEvents();
  const counts = new Map<string, number>();
  for (const e of events)
    counts.set(`${e.body.subject} ${eventName(e)}`, (counts.get(`${e.body.subject} ${eventName(e)}`) ?? 0) + 1);
  const wrong = rows.filter(
    (r) =>
      counts.get(`/productos/${r.id} ProductoCreado`) !== 1 ||
      (counts.get(`/productos/${r.id} ProductoActualizado`) ?? 0) !== Number(r.version) - 1,
  );
  expect(wrong).toEqual([]);
  expect(events.filter((e) => eventName(e) === 'ProductoCreado')).toHaveLength(rows.length);
});
