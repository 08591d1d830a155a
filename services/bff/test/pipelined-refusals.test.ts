/**
 * Issue 21, item 13: requests pipelined behind a refused one are answered,
 * each in order, on the same connection. The review saw three GETs with a
 * wrong password pipelined on one connection get one 401 and then nothing,
 * the connection held open. Here, on a raw socket (node:net), every request
 * of such a burst gets its own answer in the order sent: refusals, a right
 * password between wrong ones, a refused POST whose body the BFF never
 * reads, and the failed-authentication limit's 429s.
 */
import { deadAddress, startBareBff, type BareBff } from './support/bare-bff';
import { pipelinedRequests, type PipelinedRequest } from './support/raw-http';
import { basicAuth, TEST_PASSWORD, TEST_USER } from './support/stack';

const CLIENT_TIMEOUT_MS = 10_000;
const FAILURES_ALLOWED = 2;
const WRONG = basicAuth(TEST_USER, 'no-es-la-clave');
const RIGHT = basicAuth(TEST_USER, TEST_PASSWORD);

const get = (authorization?: string): PipelinedRequest => ({
  method: 'GET',
  path: '/api/openapi.json',
  headers: authorization === undefined ? {} : { authorization },
});

let bff: BareBff;
let limited: BareBff;

beforeAll(async () => {
  const addresses = { PRODUCTO_SVC_ADDR: await deadAddress(), BODEGA_SVC_ADDR: await deadAddress() };
  bff = await startBareBff({ ...addresses, AUTH_FAILURES_PER_15_MIN: '0' });
  limited = await startBareBff({ ...addresses, AUTH_FAILURES_PER_15_MIN: String(FAILURES_ALLOWED) });
});

afterAll(async () => {
  await bff?.close();
  await limited?.close();
});

const statuses = async (target: BareBff, requests: PipelinedRequest[]) =>
  (await pipelinedRequests(target.baseUrl, requests, CLIENT_TIMEOUT_MS)).map((res) => res.status);

describe('pipelined requests behind a refused one', () => {
  test("the review's case: three GETs with a wrong password get three 401s, in order", async () => {
    const responses = await pipelinedRequests(bff.baseUrl, [get(WRONG), get(WRONG), get(WRONG)], CLIENT_TIMEOUT_MS);
    expect(responses.map((res) => res.status)).toEqual([401, 401, 401]);
    for (const res of responses) expect(JSON.parse(res.text)).toMatchObject({ error: 'UNAUTHORIZED' });
  });

  test('three without credentials get three 401s', async () => {
    expect(await statuses(bff, [get(), get(), get()])).toEqual([401, 401, 401]);
  });

  test('a right password between wrong ones is answered 200 in its place', async () => {
    expect(await statuses(bff, [get(WRONG), get(RIGHT), get(WRONG), get(RIGHT)])).toEqual([401, 200, 401, 200]);
  });

  test('a refused POST whose body is never read does not swallow the requests behind it', async () => {
    const post: PipelinedRequest = {
      method: 'POST',
      path: '/api/productos',
      headers: { authorization: WRONG, 'content-type': 'application/json' },
      body: JSON.stringify({ nombre: 'x'.repeat(100_000), precio: 1, cantidadEnStock: 1 }),
    };
    expect(await statuses(bff, [post, get(RIGHT), post, get(RIGHT)])).toEqual([401, 200, 401, 200]);
  });

  test('past the failed-authentication limit the rest are answered 429, the right password too', async () => {
    expect(await statuses(limited, [get(WRONG), get(WRONG), get(WRONG), get(RIGHT)])).toEqual([401, 401, 429, 429]);
  });
});
