/**
 * How a GraphQL POST body is read (issue 23): a plain one (JSON in UTF-8, a declared length within the limit, not
 * compressed) without body-parser, anything else through it; either way the same answers, refusals and limits. A
 * BFF in front of a fake producto-svc: no database.
 */
import type { Socket } from 'node:net';
import { gzipSync } from 'node:zlib';
import { createLogger } from '@inventario/platform';
import { logTextSink } from '@inventario/testkit';
import { MAX_BODY_BYTES } from '../src/http/http-errors';
import { startBareBff, type BareBff } from './support/bare-bff';
import { startFakeDownstream, type FakeDownstream } from './support/fake-downstream';
import { pipelinedRequests, rawRequest, requestLogLine, socketExchange, type RawResponse } from './support/raw-http';

let fake: FakeDownstream;
let bff: BareBff;
const logLines: string[] = [];

beforeAll(async () => {
  fake = await startFakeDownstream({});
  const address = `127.0.0.1:${fake.port}`;
  bff = await startBareBff(
    { PRODUCTO_SVC_ADDR: address, BODEGA_SVC_ADDR: address },
    createLogger('bff', 'info', logTextSink(logLines)),
  );
});

afterAll(async () => {
  await bff?.close();
  await fake?.close();
});

const TYPENAME = JSON.stringify({ query: '{ __typename }' });
const ANSWER = { data: { __typename: 'Query' } };
const badRequest = (message: string) => ({ errors: [{ message, extensions: { classification: 'BAD_REQUEST' } }] });
const NOT_JSON = badRequest('El cuerpo de la petición no es JSON válido');

function post(body: string | Buffer, headers: Record<string, string> = {}, chunked = false): Promise<RawResponse> {
  return rawRequest(bff.baseUrl, {
    method: 'POST',
    path: '/api/graphql',
    headers: { authorization: bff.auth, 'content-type': 'application/json', accept: 'application/json', ...headers },
    body,
    chunked,
    timeoutMs: 10_000,
  });
}

describe('the content types read as UTF-8 JSON', () => {
  it.each([
    'application/json',
    'application/json; charset=utf-8',
    'application/json;charset=UTF-8',
    'Application/JSON; Charset=UTF-8',
  ])('%s answers the query', async (type) => {
    const response = await post(TYPENAME, { 'content-type': type });
    expect([response.status, response.body]).toEqual([200, ANSWER]);
  });

  it.each(['application/json; charset="utf-8"', 'application/json; charset=utf8', 'application/json; charset=latin1'])(
    '%s is still a 415 naming the content type to use',
    async (type) => {
      const response = await post(TYPENAME, { 'content-type': type });
      expect(response.status).toBe(415);
      expect(response.body).toEqual(
        badRequest('Tipo de contenido no admitido: envíe Content-Type: application/json (UTF-8)'),
      );
    },
  );

  it('a leading byte order mark is dropped, as body-parser drops it', async () => {
    const response = await post(`\uFEFF${TYPENAME}`);
    expect([response.status, response.body]).toEqual([200, ANSWER]);
  });

  it('a character split between two packets arrives whole', async () => {
    const body = Buffer.from(
      JSON.stringify({ query: 'query ($n: Int) { productos(first: $n) { id } }', variables: { n: 'ñandú' } }),
    );
    const split = body.indexOf(Buffer.from('ñ')) + 1;
    const text = await exchange([head(body.length), body.subarray(0, split)], async (socket) => {
      await new Promise((resolve) => setTimeout(resolve, 50));
      socket.write(body.subarray(split));
    });
    const answer = JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)) as { errors: { message: string }[] };
    expect(answer.errors[0]!.message).toContain('"ñandú"');
  });

  it('a gzip body still goes through body-parser', async () => {
    const response = await post(gzipSync(TYPENAME), { 'content-encoding': 'gzip' });
    expect([response.status, response.body]).toEqual([200, ANSWER]);
  });

  it('a chunked body (no declared length) still goes through body-parser', async () => {
    const response = await post(TYPENAME, {}, true);
    expect([response.status, response.body]).toEqual([200, ANSWER]);
  });

  it('an empty body is a missing body', async () => {
    const response = await post('');
    expect(response.status).toBe(200);
    expect(response.body).toEqual(
      badRequest('Falta el cuerpo de la petición: envíe un objeto JSON {query, variables, operationName}'),
    );
  });

  it('requests sent back to back on one connection each get their own body', async () => {
    const other = JSON.stringify({ query: '{ health: __typename }' });
    const headers = { authorization: bff.auth, 'content-type': 'application/json' };
    const responses = await pipelinedRequests(
      bff.baseUrl,
      [TYPENAME, other, TYPENAME].map((body) => ({ method: 'POST', path: '/api/graphql', headers, body })),
      10_000,
    );
    expect(responses.map((r) => [r.status, JSON.parse(r.text) as unknown])).toEqual([
      [200, ANSWER],
      [200, { data: { health: 'Query' } }],
      [200, ANSWER],
    ]);
  });
});

describe('the body limit', () => {
  const padded = (bytes: number) => `${TYPENAME.slice(0, -1)}${' '.repeat(bytes - TYPENAME.length)}}`;

  it('a body of exactly the limit is read', async () => {
    const body = padded(MAX_BODY_BYTES);
    expect(Buffer.byteLength(body)).toBe(MAX_BODY_BYTES);
    const response = await post(body);
    expect([response.status, response.body]).toEqual([200, ANSWER]);
  });

  it.each([
    ['declared', false],
    ['chunked', true],
  ])('a %s body one byte over it is a 413', async (_how, chunked) => {
    const response = await post(padded(MAX_BODY_BYTES + 1), {}, chunked);
    expect(response.status).toBe(413);
    expect(response.body).toEqual({
      error: 'PAYLOAD_TOO_LARGE',
      mensaje: `El cuerpo supera el máximo de ${MAX_BODY_BYTES} bytes (1 MiB)`,
    });
  });
});

describe('bodies read once must still be refused as before', () => {
  it.each([
    ['a key given twice with different texts', '{"query": "{ __typename }", "query": "{ health }"}'],
    ['a variable given twice', '{"query": "{ __typename }", "variables": {"v": "a", "v": "b"}}'],
    ['a key given twice, once escaped', '{"query": "{ __typename }", "\\u0071uery": "{ health }"}'],
    ['a number given twice with different texts', '{"query": "{ __typename }", "variables": {"v": 1, "v": 1.0}}'],
    ['a truncated body', '{"query": "{ __typename }"'],
    ['trailing text', `${TYPENAME} x`],
  ])('%s', async (_case, body) => {
    const response = await post(body);
    expect([response.status, response.body]).toEqual([200, NOT_JSON]);
  });

  it.each([
    ['the same key twice with the same text', '{"query": "{ __typename }", "query": "{ __typename }"}'],
    ['the same key in two objects', '{"query": "{ __typename }", "variables": {"query": "x"}, "extensions": {}}'],
    ['digits and quotes inside strings', '{"query": "{ __typename } # 1 \\"2\\" -3", "variables": {"a\\"": "[{4}]"}}'],
  ])('%s is read', async (_case, body) => {
    const response = await post(body);
    expect([response.status, response.body]).toEqual([200, ANSWER]);
  });
});

/** The request head of a plain POST declaring `length` bytes of body. */
function head(length: number): string {
  return (
    `POST /api/graphql HTTP/1.1\r\nhost: x\r\nauthorization: ${bff.auth}\r\n` +
    `content-type: application/json\r\naccept: application/json\r\ncontent-length: ${length}\r\n\r\n`
  );
}

/** Writes `parts` on a fresh connection to the BFF, then runs `then`; what the server sent. */
const exchange = (parts: (string | Buffer)[], then: (socket: Socket) => Promise<void> | void) =>
  socketExchange(bff.baseUrl, parts, then);

const requestLine = (since: number) => requestLogLine(logLines, '/api/graphql', since);

/** Each leaves the request time to reach the body reader before the client gives up on it. */
describe('a body that does not arrive whole', () => {
  it('a client that leaves before the declared length is logged as a 400 it did not wait for', async () => {
    const since = logLines.length;
    await exchange([head(100), '{"query": '], async (socket) => {
      await new Promise((resolve) => setTimeout(resolve, 200));
      socket.destroy();
    });
    expect(await requestLine(since)).toMatchObject({ status: 400, aborted: true });
  });

  it('a client that stops sending short of the declared length gets the same answer as before', async () => {
    const since = logLines.length;
    const text = await exchange([head(100), '{"query": '], async (socket) => {
      await new Promise((resolve) => setTimeout(resolve, 200));
      socket.end();
    });
    expect(text).toMatch(/^HTTP\/1\.1 400 /);
    expect(await requestLine(since)).toMatchObject({ status: 400 });
  });
});
