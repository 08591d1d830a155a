/**
 * The cheaper GraphQL answer path (issue 23): every answer declares its length instead of going
 * out chunked, and a client that leaves still stops its request (the router's disconnection is no
 * longer an AbortSignal). A BFF in front of a fake producto-svc: no database.
 */
import { request } from 'node:http';
import { createLogger } from '@inventario/platform';
import { logTextSink } from '@inventario/testkit';
import { startBareBff, type BareBff } from './support/bare-bff';
import { startFakeDownstream, type FakeDownstream } from './support/fake-downstream';
import { rawRequest, type RawResponse } from './support/raw-http';

let fake: FakeDownstream;
let bff: BareBff;
const logLines: string[] = [];
const pending: ((err: unknown, res?: unknown) => void)[] = [];
let callArrived: () => void = () => undefined;

beforeAll(async () => {
  fake = await startFakeDownstream({
    producto: {
      listProductos: (_call, callback) => {
        pending.push(callback);
        callArrived();
      },
    },
  });
  const address = `127.0.0.1:${fake.port}`;
  bff = await startBareBff(
    { PRODUCTO_SVC_ADDR: address, BODEGA_SVC_ADDR: address, GRPC_DEADLINE_MS: '600000' },
    createLogger('bff', 'warn', logTextSink(logLines)),
  );
});

afterAll(async () => {
  for (const callback of pending.splice(0)) callback(null, { productos: [], nextPageToken: '' });
  await bff?.close();
  await fake?.close();
});

function post(body: string, headers: Record<string, string> = {}): Promise<RawResponse> {
  return rawRequest(bff.baseUrl, {
    method: 'POST',
    path: '/api/graphql',
    headers: { authorization: bff.auth, 'content-type': 'application/json', ...headers },
    body,
    timeoutMs: 10_000,
  });
}

function expectDeclaredLength(response: RawResponse): void {
  expect(response.headers['transfer-encoding']).toBeUndefined();
  expect(response.headers['content-length']).toBe(String(Buffer.byteLength(response.text, 'utf8')));
}

describe('a GraphQL answer declares its length', () => {
  it.each([
    ['a result', JSON.stringify({ query: '{ __typename }' }), {}, 200],
    ['a validation error', JSON.stringify({ query: '{ noExiste }' }), {}, 200],
    [
      'a syntax error under graphql-response+json',
      JSON.stringify({ query: '{' }),
      { accept: 'application/graphql-response+json' },
      400,
    ],
    ['a batch', JSON.stringify([{ query: '{ __typename }' }]), {}, 200],
    ['an unsupported content type', '{ __typename }', { 'content-type': 'application/graphql' }, 415],
  ])('%s', async (_what, body, headers, status) => {
    const response = await post(body, headers);
    expect(response.status).toBe(status);
    expect(response.text).not.toBe('');
    expectDeclaredLength(response);
  });

  it('a mutation sent by GET (405, its body rewritten)', async () => {
    const query = encodeURIComponent('mutation { eliminarProducto(id: "1") { success } }');
    const response = await rawRequest(bff.baseUrl, {
      method: 'GET',
      path: `/api/graphql?query=${query}`,
      headers: { authorization: bff.auth },
      timeoutMs: 10_000,
    });
    expect(response.status).toBe(405);
    expectDeclaredLength(response);
  });
});

describe('a client that leaves', () => {
  it('stops its request while the downstream call is still unanswered', async () => {
    const arrived = new Promise<void>((resolve) => (callArrived = resolve));
    const url = new URL(bff.baseUrl);
    const body = JSON.stringify({ query: '{ productos { id } }' });
    const req = request({
      host: url.hostname,
      port: url.port,
      method: 'POST',
      path: '/api/graphql',
      headers: {
        authorization: bff.auth,
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(body)),
      },
    });
    req.on('error', () => undefined);
    req.end(body);
    await arrived;
    req.destroy();
    const stopped = async () => {
      for (let i = 0; i < 100; i++) {
        const line = logLines.find((l) => l.includes('El cliente cerró la conexión antes de la respuesta'));
        if (line) return line;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return undefined;
    };
    expect(await stopped()).toContain('GraphQL request stopped at its limit');
  });
});
