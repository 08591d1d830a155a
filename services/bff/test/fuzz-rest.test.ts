/**
 * Property-based fuzzing of every REST operation of the OpenAPI document
 * (GraphQL's HTTP endpoint and the probes included), over the real stack:
 * fast-check generates path ids, query strings, JSON bodies (valid-ish and
 * hostile: wrong types, huge/negative/fractional numbers, Unicode, nesting,
 * prototype keys) and content types. For every case:
 *
 * - the answer comes within a client timeout (never a hang) and is never a 5xx;
 * - a documented status matches the document (headers and body); any other
 *   4xx carries the document's error body `{error, mensaje, detalles?}`;
 * - a request that was not an accepted write (a GET, or any 4xx) changed no
 *   row in either service's database (outbox included) and no message in
 *   the test's stream.
 *
 * A fixed seed (FUZZ_SEED overrides it) makes a failure reproducible; it is
 * printed at the start.
 */
import fc from 'fast-check';
import { parameters } from '../src/openapi/components';
import { errorBodyProblems } from './support/error-schema';
import { hostileJson, jsonText, objectOf, pathId, queryString, type JsonTree } from './support/fuzz-arbitraries';
import { createOpenApiValidator, type DocumentedOperation } from './support/openapi-validator';
import { rawRequest, type RawResponse } from './support/raw-http';
import { startFuzzFixture, type FuzzFixture } from './support/fuzz-fixture';

const SEED = Number(process.env.FUZZ_SEED ?? 20261122);
/** Cases per operation (see runsOf). */
const RUNS_WITH_BODY = 100;
const RUNS_WITHOUT_BODY = 40;
/** A request not answered within this is a hang. */
const CLIENT_TIMEOUT_MS = 10_000;

/** The JSON bodies each writing operation reads, by field and kind. */
const BODY_FIELDS: Readonly<Record<string, Record<string, 'text' | 'number' | 'integer' | 'id'>>> = {
  'POST /api/productos': {
    nombre: 'text',
    descripcion: 'text',
    precio: 'number',
    cantidadEnStock: 'integer',
    bodegaId: 'id',
  },
  'PUT /api/productos/{id}': {
    nombre: 'text',
    descripcion: 'text',
    precio: 'number',
    cantidadEnStock: 'integer',
    bodegaId: 'id',
  },
  'POST /api/bodegas': { nombre: 'text', ubicacion: 'text', capacidad: 'integer' },
  'PUT /api/bodegas/{id}': { nombre: 'text', ubicacion: 'text', capacidad: 'integer' },
  'POST /api/graphql': { query: 'text', variables: 'text', operationName: 'text' },
};

const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'text/plain',
  'application/x-www-form-urlencoded',
];

const validator = createOpenApiValidator();
let fixture: FuzzFixture;
/** Cases run, by operation, and answers by status, for the summary. */
const casesRun = new Map<string, number>();
const statuses = new Map<number, number>();

beforeAll(async () => {
  process.stdout.write(`fuzz-rest: fast-check seed ${SEED} (set FUZZ_SEED to replay another)\n`);
  // Ids 1..3 of warehouses and 1..4 of products exist, so generated small ids often hit a record.
  fixture = await startFuzzFixture('fuzzrest', 'Fuzz', 1.5);
}, 120_000);

afterAll(async () => {
  await fixture?.close();
});

interface FuzzCase {
  path: string;
  query: string;
  body?: string;
  contentType?: string;
}

/** The query parameter names an operation documents. */
function queryNames(operation: DocumentedOperation): string[] {
  return (operation.operation.parameters ?? [])
    .map((p) => ('$ref' in p ? parameters[p.$ref.split('/').pop() as keyof typeof parameters] : p))
    .filter((p) => p.in === 'query')
    .map((p) => p.name);
}

function caseArbitrary(operation: DocumentedOperation, key: string): fc.Arbitrary<FuzzCase> {
  const fields = BODY_FIELDS[key];
  const body: fc.Arbitrary<string | undefined> = fields
    ? fc.oneof(
        { weight: 3, arbitrary: objectOf(fields).map(jsonText) },
        { weight: 1, arbitrary: hostileJson.map(jsonText) },
        fc.constant(undefined),
      )
    : fc.option(
        hostileJson.map((tree: JsonTree) => jsonText(tree)),
        { freq: 3, nil: undefined },
      );
  return fc.record({
    path: fc.tuple(fc.constantFrom('/api', '/api/v1'), pathId).map(([prefix, id]) => {
      const path = operation.path.replace('{id}', id);
      return path.startsWith('/api/') ? `${prefix}${path.slice('/api'.length)}` : path;
    }),
    query: queryString(queryNames(operation)),
    body,
    contentType: fc.oneof(
      { weight: 8, arbitrary: fc.constant('application/json') },
      { weight: 2, arbitrary: fc.constantFrom(...CONTENT_TYPES) },
    ),
  });
}

/** What is wrong with one answer, by the properties above; [] when nothing. */
function answerProblems(operation: DocumentedOperation, path: string, res: RawResponse): string[] {
  if (res.status >= 500) return [`${res.status} (a 5xx): ${res.text.slice(0, 300)}`];
  const found = validator.findOperation(operation.method, path.split('?', 1)[0]!);
  const observed = {
    method: operation.method,
    path: found ? path : operation.path,
    status: res.status,
    headers: res.headers,
    body: res.body,
    text: res.text,
  };
  if (operation.statuses.includes(res.status)) return validator.responseProblems(observed);
  if (res.status >= 400) {
    if (!/^application\/json/.test(res.headers['content-type'] ?? ''))
      return [`${res.status} without a JSON body: ${res.text.slice(0, 200)}`];
    return errorBodyProblems(res.body).map((p) => `${res.status}: ${p}`);
  }
  return [`${res.status} is not documented for ${operation.method} ${operation.path}`];
}

/** A write the API accepted (after which the baseline moves); anything else must change nothing. */
function acceptedWrite(operation: DocumentedOperation, res: RawResponse): boolean {
  if (operation.method === 'GET' || res.status >= 400) return false;
  if (operation.path === '/api/graphql') {
    const body = res.body as { data?: unknown } | undefined;
    return body?.data !== undefined && body.data !== null;
  }
  return true;
}

const operations = validator.operations();

/** Cases for one operation: more where a body is read or something may be written. */
const runsOf = (operation: DocumentedOperation) => (operation.method !== 'GET' ? RUNS_WITH_BODY : RUNS_WITHOUT_BODY);

describe.each(operations.map((o) => [`${o.method} ${o.path}`, o] as const))('%s', (key, operation) => {
  const runs = runsOf(operation);

  test(`${runs} generated requests: no 5xx, no hang, documented error bodies, nothing written when rejected`, async () => {
    await fc.assert(
      fc.asyncProperty(caseArbitrary(operation, key), async (fuzz) => {
        const headers: Record<string, string> = { authorization: fixture.stack.auth, accept: 'application/json' };
        if (fuzz.body !== undefined && fuzz.contentType) headers['content-type'] = fuzz.contentType;
        const path = `${fuzz.path}${fuzz.query}`;
        const res = await rawRequest(fixture.stack.baseUrl, {
          method: operation.method,
          path,
          headers,
          body: fuzz.body,
          timeoutMs: CLIENT_TIMEOUT_MS,
        });
        casesRun.set(key, (casesRun.get(key) ?? 0) + 1);
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);

        expect(answerProblems(operation, path, res)).toEqual([]);
        if (acceptedWrite(operation, res)) await fixture.rebase();
        else expect(await fixture.snapshot()).toEqual(fixture.baseline);
      }),
      { seed: SEED, numRuns: runs, endOnFailure: true },
    );
    expect(casesRun.get(key)).toBe(runs);
  }, 120_000);
});

test(`every operation of the document was fuzzed (${operations.length} operations)`, () => {
  expect([...casesRun.keys()].sort()).toEqual(operations.map((o) => `${o.method} ${o.path}`).sort());
  const total = [...casesRun.values()].reduce((a, b) => a + b, 0);
  const byStatus = [...statuses].sort(([a], [b]) => a - b).map(([status, n]) => `${status}: ${n}`);
  process.stdout.write(`fuzz-rest: ${total} cases over ${casesRun.size} operations; answers ${byStatus.join(', ')}\n`);
  expect(total).toBe(operations.reduce((sum, o) => sum + runsOf(o), 0));
});
