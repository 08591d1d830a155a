/**
 * How a REST body is read (issue 23): a plain one (JSON in UTF-8, a declared length within the limit, not compressed)
 * without body-parser and parsed by JSON.parse when that reads as lossless-json; anything else as before. Either way
 * the same answers, refusals and limits. A stock movement to a fake bodega-svc that answers with what it was sent:
 * no database. The file passes on the code before the change too: it pins what the reader must keep.
 */
import { Writable } from 'node:stream';
import type { Socket } from 'node:net';
import { gzipSync } from 'node:zlib';
import { createLogger } from '@inventario/platform';
import { MAX_BODY_BYTES } from '../src/http/http-errors';
import { startBareBff, type BareBff } from './support/bare-bff';
import { startFakeDownstream, type FakeDownstream } from './support/fake-downstream';
import { pipelinedRequests, rawRequest, requestLogLine, socketExchange, type RawResponse } from './support/raw-http';

let fake: FakeDownstream;
let bff: BareBff;
const logLines: string[] = [];

interface Movimiento {
  productoId: number;
  cantidad: number;
  comentario?: string;
}

beforeAll(async () => {
  fake = await startFakeDownstream({
    existencia: {
      registrarMovimiento: ({ request }, callback) => {
        const { bodegaId, productoId, cantidad, comentario } = request as Movimiento & { bodegaId: number };
        const fecha = new Date(Date.UTC(2026, 10, 30));
        const linea = { id: 1, operacionId: 9, bodegaId, productoId, tipo: 2, motivo: 3, cantidad: -cantidad, fecha };
        callback(null, { operacion: { id: 9, tipo: 4, usuario: 'u', comentario, fecha, movimientos: [linea] } });
      },
    },
  });
  const address = `127.0.0.1:${fake.port}`;
  const lines = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logLines.push(chunk.toString('utf8'));
      done();
    },
  });
  bff = await startBareBff(
    { PRODUCTO_SVC_ADDR: address, BODEGA_SVC_ADDR: address },
    createLogger('bff', 'info', lines),
  );
});

afterAll(async () => {
  await bff?.close();
  await fake?.close();
});

const PATH = '/api/bodegas/3/movimientos';
const SALIDA = '{"productoId":7,"tipo":"SALIDA","cantidad":2}';

function post(body: string | Buffer, headers: Record<string, string> = {}, chunked = false): Promise<RawResponse> {
  return rawRequest(bff.baseUrl, {
    method: 'POST',
    path: PATH,
    headers: { authorization: bff.auth, 'content-type': 'application/json', ...headers },
    body,
    chunked,
    timeoutMs: 10_000,
  });
}

/** What bodega-svc was asked, as the answer echoes it: the units taken (and the comment). */
function taken(response: RawResponse): [number, number | undefined, string | null | undefined] {
  const body = response.body as { movimientos?: { cantidad: number }[]; comentario?: string | null };
  return [response.status, body.movimientos && -body.movimientos[0]!.cantidad, body.comentario];
}

const malformed = (motivo: string) => ({
  error: 'MALFORMED_JSON',
  mensaje: `El cuerpo no es JSON válido: ${motivo}`,
});
const invalid = (campo: string, mensaje: string) => ({
  error: 'VALIDATION_ERROR',
  mensaje: `Datos no válidos: ${campo}: ${mensaje}`,
  detalles: [{ campo, mensaje }],
});
const UNSUPPORTED = {
  error: 'UNSUPPORTED_MEDIA_TYPE',
  mensaje: 'Tipo de contenido no admitido: envíe Content-Type: application/json',
};

describe('the content types read as JSON', () => {
  it.each([
    'application/json',
    'application/json; charset=utf-8',
    'application/json;charset=UTF-8',
    'Application/JSON; Charset=UTF-8',
    'application/json; charset="utf-8"',
    'application/merge-patch+json',
  ])('%s is read', async (type) => {
    expect(taken(await post(SALIDA, { 'content-type': type }))).toEqual([201, 2, null]);
  });

  it.each(['text/plain', 'application/x-www-form-urlencoded', 'application/jsonx'])('%s is a 415', async (type) => {
    const response = await post(SALIDA, { 'content-type': type });
    expect([response.status, response.body]).toEqual([415, UNSUPPORTED]);
  });

  it('a body without a content type is a 415', async () => {
    const response = await rawRequest(bff.baseUrl, {
      method: 'POST',
      path: PATH,
      headers: { authorization: bff.auth },
      body: SALIDA,
      timeoutMs: 10_000,
    });
    expect([response.status, response.body]).toEqual([415, UNSUPPORTED]);
  });

  it('a charset body-parser does not know is a 415 naming UTF-8', async () => {
    const response = await post(SALIDA, { 'content-type': 'application/json; charset=klingon' });
    expect([response.status, response.body]).toEqual([
      415,
      { error: 'UNSUPPORTED_MEDIA_TYPE', mensaje: 'Juego de caracteres no admitido: envíe JSON en UTF-8' },
    ]);
  });

  it('a leading byte order mark is dropped, as body-parser drops it', async () => {
    expect(taken(await post(`\uFEFF${SALIDA}`))).toEqual([201, 2, null]);
  });

  it('a second byte order mark is refused as before', async () => {
    const response = await post(`\uFEFF\uFEFF${SALIDA}`);
    expect(response.status).toBe(400);
    expect((response.body as { error: string }).error).toBe('MALFORMED_JSON');
  });

  it('a character split between two packets arrives whole', async () => {
    const body = Buffer.from('{"productoId":7,"tipo":"SALIDA","cantidad":1,"comentario":"ñandú"}');
    const split = body.indexOf(Buffer.from('ñ')) + 1;
    const text = await exchange([head(body.length), body.subarray(0, split)], async (socket) => {
      await new Promise((resolve) => setTimeout(resolve, 50));
      socket.write(body.subarray(split));
    });
    const answer = JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)) as { comentario: string };
    expect(answer.comentario).toBe('ñandú');
  });

  it('a gzip body still goes through body-parser', async () => {
    expect(taken(await post(gzipSync(SALIDA), { 'content-encoding': 'gzip' }))).toEqual([201, 2, null]);
  });

  it('a chunked body (no declared length) still goes through body-parser', async () => {
    expect(taken(await post(SALIDA, {}, true))).toEqual([201, 2, null]);
  });

  it.each([
    ['empty', ''],
    ['only whitespace', ' \n\t '],
  ])('an %s body is a missing body', async (_case, body) => {
    const response = await post(body);
    expect([response.status, response.body]).toEqual([400, invalid('cuerpo', 'es obligatorio: envíe un objeto JSON')]);
  });

  it('requests sent back to back on one connection each get their own body', async () => {
    const headers = { authorization: bff.auth, 'content-type': 'application/json' };
    const responses = await pipelinedRequests(
      bff.baseUrl,
      [1, 2, 3].map((n) => ({ method: 'POST', path: PATH, headers, body: SALIDA.replace('2', String(n)) })),
      10_000,
    );
    expect(
      responses.map((r) => [
        r.status,
        (JSON.parse(r.text) as { movimientos: { cantidad: number }[] }).movimientos[0]!.cantidad,
      ]),
    ).toEqual([
      [201, -1],
      [201, -2],
      [201, -3],
    ]);
  });
});

describe('the body limit', () => {
  const padded = (bytes: number) => `${SALIDA.slice(0, -1)}${' '.repeat(bytes - SALIDA.length)}}`;

  it('a body of exactly the limit is read', async () => {
    const body = padded(MAX_BODY_BYTES);
    expect(Buffer.byteLength(body)).toBe(MAX_BODY_BYTES);
    expect(taken(await post(body))).toEqual([201, 2, null]);
  });

  it.each([
    ['declared', false],
    ['chunked', true],
  ])('a %s body one byte over it is a 413', async (_how, chunked) => {
    const response = await post(padded(MAX_BODY_BYTES + 1), {}, chunked);
    expect([response.status, response.body]).toEqual([
      413,
      { error: 'PAYLOAD_TOO_LARGE', mensaje: `El cuerpo supera el máximo de ${MAX_BODY_BYTES} bytes (1 MiB)` },
    ]);
  });
});

describe('numbers and keys are judged as written', () => {
  it.each([
    ['a big integer', '12345678901234567890123', invalid('cantidad', 'no puede superar 2147483647')],
    ['an exponent past a double', '1e400', invalid('cantidad', 'no puede superar 2147483647')],
    ['a fraction', '2.5', invalid('cantidad', 'debe ser un número entero')],
  ])('%s is refused naming the field', async (_case, cantidad, answer) => {
    const response = await post(SALIDA.replace('2', cantidad));
    expect([response.status, response.body]).toEqual([400, answer]);
  });

  it.each([
    ['minus zero', '-0', 0],
    ['a whole number with a point', '2.0', 2],
    ['an exponent', '2e0', 2],
  ])('%s is the number it writes', async (_case, cantidad, units) => {
    const response = await post(`{"productoId":7,"tipo":"ENTRADA","cantidad":${cantidad}}`);
    expect(taken(response)).toEqual(units === 0 ? [400, undefined, undefined] : [201, units, null]);
  });

  it.each([
    ['a key given twice with different values', '{"productoId":7,"tipo":"SALIDA","cantidad":2,"cantidad":3}'],
    ['a key given twice, once escaped', '{"productoId":7,"tipo":"SALIDA","cantidad":2,"\\u0063antidad":3}'],
    ['a number given twice with different texts', '{"productoId":7,"tipo":"SALIDA","cantidad":2,"cantidad":2.0}'],
  ])('%s is a 400 naming it', async (_case, body) => {
    const response = await post(body);
    expect([response.status, response.body]).toEqual([
      400,
      malformed(`la propiedad 'cantidad' aparece dos veces con valores distintos (posición 46)`),
    ]);
  });

  it('the same key twice with the same text is read', async () => {
    expect(taken(await post('{"productoId":7,"tipo":"SALIDA","cantidad":2,"cantidad":2}'))).toEqual([201, 2, null]);
  });

  it.each([
    ['a leading zero', '{"cantidad":01}', "se esperaba una coma ',' tras el valor y se encontró '1' (posición 13)"],
    [
      'a trailing comma',
      '{"cantidad":1,}',
      "se esperaba el nombre de una propiedad entre comillas y se encontró '}' (posición 14)",
    ],
    ['trailing text', `${SALIDA} x`, "se esperaba el final del cuerpo y se encontró 'x' (posición 46)"],
  ])('%s is a 400 with its reason', async (_case, body, motivo) => {
    const response = await post(body);
    expect([response.status, response.body]).toEqual([400, malformed(motivo)]);
  });
});

/** The request head of a plain POST declaring `length` bytes of body. */
function head(length: number): string {
  return (
    `POST ${PATH} HTTP/1.1\r\nhost: x\r\nauthorization: ${bff.auth}\r\n` +
    `content-type: application/json\r\ncontent-length: ${length}\r\n\r\n`
  );
}

/** Writes `parts` on a fresh connection to the BFF, then runs `then`; what the server sent. */
const exchange = (parts: (string | Buffer)[], then: (socket: Socket) => Promise<void> | void) =>
  socketExchange(bff.baseUrl, parts, then);

const requestLine = (since: number) => requestLogLine(logLines, PATH, since);

/** Each leaves the request time to reach the body reader before the client gives up on it; bodega-svc is not asked. */
describe('a body that does not arrive whole', () => {
  it('a client that leaves before the declared length is logged as aborted', async () => {
    const since = logLines.length;
    const calls = fake.calls.length;
    await exchange([head(100), '{"cantidad": '], async (socket) => {
      await new Promise((resolve) => setTimeout(resolve, 200));
      socket.destroy();
    });
    expect(await requestLine(since)).toMatchObject({ path: PATH, aborted: true });
    expect(fake.calls.length).toBe(calls);
  });

  it("a client that stops sending short of the declared length gets Node's 400 for a malformed request", async () => {
    const calls = fake.calls.length;
    const text = await exchange([head(100), '{"cantidad": '], async (socket) => {
      await new Promise((resolve) => setTimeout(resolve, 200));
      socket.end();
    });
    expect(text).toMatch(/^HTTP\/1\.1 400 /);
    expect(JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4))).toEqual({
      error: 'BAD_REQUEST',
      mensaje: 'La petición HTTP está mal formada',
    });
    expect(fake.calls.length).toBe(calls);
  });
});
