/**
 * Safe writes (issue 12) end to end over the real producto-svc, bodega-svc,
 * MariaDB and NATS behind the BFF: versions as ETags, conditional writes
 * (If-Match, GraphQL `version`) that never lose an update, and
 * Idempotency-Key (GraphQL `idempotencyKey`) that makes a retry safe: one
 * row and one event however many times, and however concurrently, a keyed
 * write is sent; also when the first attempt answered 504 and committed
 * later, and when a forced warehouse delete was left half done.
 */
import { credentials, Metadata, type ServiceError } from '@grpc/grpc-js';
import { createDb, USUARIO_METADATA_KEY, type Knex } from '@inventario/platform';
import { ProductoServiceClient, UnassignBodegaRequest, type UnassignBodegaResponse } from '@inventario/proto';
import { metricSample, scrapeMetrics, waitFor, crearBodega, crearProducto, uniqueNombre } from '@inventario/testkit';
import { rawRequest } from './support/raw-http';
import {
  eventName,
  eventsAbout,
  freshKey,
  idempotencyScope,
  productoIdsNamed,
  startSafeWriteStack,
  type SafeWriteStack,
} from './support/safe-write-stack';
import { TEST_USER, type StackResponse } from './support/stack';
import { createWriteProbe, type WriteProbe } from './support/write-probe';

let stack: SafeWriteStack;
let probe: WriteProbe;

beforeAll(async () => {
  stack = await startSafeWriteStack('bff_safe_writes');
  probe = await createWriteProbe(stack);
}, 60_000);

afterAll(async () => {
  await probe?.close();
  await stack?.close();
});

const key = (headers: Record<string, string> = {}, k?: string) =>
  k === undefined ? headers : { ...headers, 'idempotency-key': k };

/** The stored version of a product (SQL, not the API). */
async function sqlVersion(id: number): Promise<number> {
  const row = (await stack.productoDb('productos').select('version').where({ id }).first()) as
    { version: number } | undefined;
  if (!row) throw new Error(`no product ${id} in SQL`);
  return Number(row.version);
}

function expectPreconditionFailed(res: StackResponse, versionActual: number | null): void {
  expect(res.status).toBe(412);
  expect(res.body).toEqual({
    error: 'PRECONDITION_FAILED',
    mensaje: expect.any(String),
    detalles: [{ campo: 'If-Match', mensaje: expect.any(String) }],
    versionActual,
  });
}

function expectBadKey(res: StackResponse): void {
  expect(res.status).toBe(400);
  expect(res.body?.error).toBe('VALIDATION_ERROR');
  expect(res.body?.detalles).toEqual([{ campo: 'Idempotency-Key', mensaje: expect.any(String) }]);
}

describe('versions and ETags', () => {
  test('a product: version 1 at creation and +1 per update, in bodies and as a strong ETag; If-None-Match 304 while current, 200 once stale', async () => {
    const created = await stack.request('POST', '/api/productos', {
      body: { nombre: uniqueNombre('Versionado'), precio: 4, cantidadEnStock: 9 },
    });
    expect(created.status).toBe(201);
    expect(created.body.version).toBe(1);
    expect(created.headers.get('etag')).toBe('"1"');
    const id = created.body.id as number;

    const read = await stack.request('GET', `/api/productos/${id}`);
    expect(read.status).toBe(200);
    expect(read.headers.get('etag')).toBe('"1"');
    expect(read.body).toEqual(created.body);

    const fresh = await stack.request('GET', `/api/productos/${id}`, { headers: { 'if-none-match': '"1"' } });
    expect(fresh.status).toBe(304);
    expect(fresh.text).toBe('');
    expect(fresh.headers.get('etag')).toBe('"1"');

    for (const [n, cantidadEnStock] of [
      [2, 8],
      [3, 7],
    ] as const) {
      const put = await stack.request('PUT', `/api/productos/${id}`, { body: { cantidadEnStock } });
      expect(put.status).toBe(200);
      expect(put.body).toMatchObject({ id, cantidadEnStock, version: n });
      expect(put.headers.get('etag')).toBe(`"${n}"`);
      expect(await sqlVersion(id)).toBe(n);
    }

    const stale = await stack.request('GET', `/api/productos/${id}`, { headers: { 'if-none-match': '"1"' } });
    expect(stale.status).toBe(200);
    expect(stale.headers.get('etag')).toBe('"3"');
    expect(stale.body).toMatchObject({ id, cantidadEnStock: 7, version: 3 });
    expect(
      (await stack.request('GET', `/api/productos/${id}`, { headers: { 'if-none-match': '"2", "3"' } })).status,
    ).toBe(304);

    // Lists carry the version too.
    const list = await stack.request('GET', `/api/productos?q=${encodeURIComponent(created.body.nombre as string)}`);
    expect(list.body).toEqual([expect.objectContaining({ id, version: 3 })]);
  });

  test('a warehouse: the same, its ETag "<version>.<ocupacion>" on GET, POST and PUT; stock moving changes the ETag, not the version', async () => {
    const created = await stack.request('POST', '/api/bodegas', {
      body: { nombre: uniqueNombre('Bodega versionada'), ubicacion: 'Vigo', capacidad: 10 },
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('etag')).toBe('"1.0"');
    const id = created.body.id as number;

    const read = await stack.request('GET', `/api/bodegas/${id}`);
    expect(read.headers.get('etag')).toBe('"1.0"');
    expect(read.body.version).toBe(1);
    expect((await stack.request('GET', `/api/bodegas/${id}`, { headers: { 'if-none-match': '"1.0"' } })).status).toBe(
      304,
    );

    // If-Match takes the ETag as read, and compares its version.
    const put = await stack.request('PUT', `/api/bodegas/${id}`, {
      body: { capacidad: 11 },
      headers: { 'if-match': '"1.0"' },
    });
    expect(put.status).toBe(200);
    expect(put.headers.get('etag')).toBe('"2.0"');

    const stale = await stack.request('GET', `/api/bodegas/${id}`, { headers: { 'if-none-match': '"1.0"' } });
    expect(stale.status).toBe(200);
    expect(stale.body).toMatchObject({ id, capacidad: 11, version: 2 });
    expect((await stack.request('GET', `/api/bodegas/${id}`, { headers: { 'if-none-match': '"2.0"' } })).status).toBe(
      304,
    );
    expect((await stack.request('GET', '/api/bodegas')).body).toContainEqual(
      expect.objectContaining({ id, version: 2 }),
    );

    // Units arriving change what a GET answers (ocupacion), so the held ETag no longer gives 304 ...
    const producto = await crearProducto(stack);
    expect(
      (await stack.request('POST', `/api/bodegas/${id}/productos`, { body: { productoId: producto.id, cantidad: 4 } }))
        .status,
    ).toBe(200);
    const moved = await stack.request('GET', `/api/bodegas/${id}`, { headers: { 'if-none-match': '"2.0"' } });
    expect(moved.status).toBe(200);
    expect(moved.headers.get('etag')).toBe('"2.4"');
    expect(moved.body).toMatchObject({ version: 2, ocupacion: 4 });
    // ... but they are no edit of the warehouse: the ETag read before them still writes.
    const edit = await stack.request('PUT', `/api/bodegas/${id}`, {
      body: { ubicacion: 'Ourense' },
      headers: { 'if-match': '"2.0"' },
    });
    expect(edit.status).toBe(200);
    expect(edit.headers.get('etag')).toBe('"3.4"');
    expect(
      (
        await stack.request('PUT', `/api/bodegas/${id}`, {
          body: { ubicacion: 'Lugo' },
          headers: { 'if-match': '"2.4"' },
        })
      ).status,
    ).toBe(412);
  });
});

describe('If-Match', () => {
  test('20 concurrent read-then-PUT decrements, each retrying on 412: none lost, 20 events with versions 2..21', async () => {
    const start = 100;
    const producto = await crearProducto(stack, { nombre: uniqueNombre('Contador'), cantidadEnStock: start });
    const path = `/api/productos/${producto.id}`;
    let refused = 0;

    const decrement = async (): Promise<void> => {
      for (let attempt = 1; attempt <= 200; attempt++) {
        const read = await stack.request('GET', path);
        expect(read.status).toBe(200);
        const res = await stack.request('PUT', path, {
          body: { cantidadEnStock: (read.body.cantidadEnStock as number) - 1 },
          headers: { 'if-match': read.headers.get('etag')! },
        });
        if (res.status === 200) return;
        expect(res.status).toBe(412);
        expect(res.body.versionActual).toBeGreaterThan(read.body.version as number);
        refused += 1;
      }
      throw new Error('200 attempts without a successful decrement');
    };
    await Promise.all(Array.from({ length: 20 }, decrement));

    const final = await stack.request('GET', path);
    expect(final.body).toMatchObject({ cantidadEnStock: start - 20, version: 21 });
    expect(await sqlVersion(producto.id)).toBe(21);

    const updates = eventsAbout(await stack.settledEvents(), `/productos/${producto.id}`, 'ProductoActualizado');
    expect(updates).toHaveLength(20);
    expect(updates.map((e) => e.body.data.version).sort((a, b) => Number(a) - Number(b))).toEqual(
      Array.from({ length: 20 }, (_, i) => i + 2),
    );
    // Each event carries the stock its own version wrote: start - (version - 1).
    for (const e of updates) expect(e.body.data.cantidad).toBe(start - (Number(e.body.data.version) - 1));
    process.stdout.write(`safe-writes: 20 concurrent decrements took ${20 + refused} PUTs (${refused} answered 412)\n`);
  });

  test('two PUTs with the same If-Match: one 200, one 412 with versionActual; the loser wrote and published nothing', async () => {
    const producto = await crearProducto(stack, { nombre: uniqueNombre('Gemelos'), precio: 10 });
    const path = `/api/productos/${producto.id}`;
    const [a, b] = await Promise.all([
      stack.request('PUT', path, { body: { precio: 11 }, headers: { 'if-match': '"1"' } }),
      stack.request('PUT', path, { body: { precio: 12 }, headers: { 'if-match': '"1"' } }),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, 412]);
    const [winner, loser] = a.status === 200 ? [a, b] : [b, a];
    expectPreconditionFailed(loser, 2);
    expect(winner.body).toMatchObject({ version: 2 });

    const afterFirst = await probe.settledSnapshot();
    expect(await sqlVersion(producto.id)).toBe(2);
    expect((await stack.request('GET', path)).body.precio).toBe(winner.body.precio);
    const events = eventsAbout(await stack.settledEvents(), `/productos/${producto.id}`);
    expect(events.map(eventName)).toEqual(['ProductoCreado', 'ProductoActualizado']);

    // The same late twin, on its own: 412 and not one byte written or published.
    expectPreconditionFailed(
      await stack.request('PUT', path, { body: { precio: 13 }, headers: { 'if-match': '"1"' } }),
      2,
    );
    expect(await probe.settledSnapshot()).toEqual(afterFirst);
  });

  test('If-Match: * on a missing record is 412 (versionActual null), on an existing one it applies; a malformed If-Match is 400 naming it', async () => {
    const before = await probe.snapshot();
    expectPreconditionFailed(
      await stack.request('PUT', '/api/productos/987654', { body: { precio: 1 }, headers: { 'if-match': '*' } }),
      null,
    );
    expectPreconditionFailed(
      await stack.request('DELETE', '/api/productos/987654', { headers: { 'if-match': '*' } }),
      null,
    );
    expectPreconditionFailed(
      await stack.request('PUT', '/api/bodegas/987654', { body: { capacidad: 1 }, headers: { 'if-match': '*' } }),
      null,
    );
    expectPreconditionFailed(
      await stack.request('DELETE', '/api/bodegas/987654?force=true', { headers: { 'if-match': '*' } }),
      null,
    );

    const producto = await crearProducto(stack);
    const path = `/api/productos/${producto.id}`;
    const settled = await probe.settledSnapshot();
    for (const malformed of ['1', 'W/', '"1", "2"', '"1" "2"']) {
      const res = await stack.request('PUT', path, { body: { precio: 2 }, headers: { 'if-match': malformed } });
      expect({ malformed, status: res.status }).toEqual({ malformed, status: 400 });
      expect(res.body.detalles).toEqual([{ campo: 'If-Match', mensaje: expect.any(String) }]);
    }
    expect((await stack.request('DELETE', path, { headers: { 'if-match': 'uno' } })).status).toBe(400);
    expect(await probe.snapshot()).toEqual(settled);
    expect(before.rows['producto.productos']! + 1).toBe(settled.rows['producto.productos']);

    const starred = await stack.request('PUT', path, { body: { precio: 2 }, headers: { 'if-match': '*' } });
    expect(starred.status).toBe(200);
    expect(starred.headers.get('etag')).toBe('"2"');
  });

  test('DELETE with a stale If-Match is 412 and deletes nothing; with the current one it deletes', async () => {
    const producto = await crearProducto(stack);
    const path = `/api/productos/${producto.id}`;
    expect((await stack.request('PUT', path, { body: { precio: 3 } })).status).toBe(200);
    const settled = await probe.settledSnapshot();

    expectPreconditionFailed(await stack.request('DELETE', path, { headers: { 'if-match': '"1"' } }), 2);
    expect((await stack.request('GET', path)).status).toBe(200);
    expect(await probe.settledSnapshot()).toEqual(settled);

    expect((await stack.request('DELETE', path, { headers: { 'if-match': '"2"' } })).status).toBe(204);
    expect((await stack.request('GET', path)).status).toBe(404);
  });

  test('DELETE /api/bodegas/{id}?force=true with a stale If-Match is 412: nothing unassigned, nothing deleted', async () => {
    const bodegaId = await crearBodega(stack);
    const productos = [await crearProducto(stack, { bodegaId }), await crearProducto(stack, { bodegaId })];
    expect((await stack.request('PUT', `/api/bodegas/${bodegaId}`, { body: { capacidad: 99 } })).status).toBe(200);
    const settled = await probe.settledSnapshot();

    for (const path of [`/api/bodegas/${bodegaId}?force=true`, `/api/bodegas/${bodegaId}`]) {
      expectPreconditionFailed(await stack.request('DELETE', path, { headers: { 'if-match': '"1"' } }), 2);
    }
    expect(await probe.settledSnapshot()).toEqual(settled);
    for (const p of productos)
      expect((await stack.request('GET', `/api/productos/${p.id}`)).body).toMatchObject({ bodegaId, version: 1 });
    expect((await stack.request('GET', `/api/bodegas/${bodegaId}`)).status).toBe(200);
  });
});

describe('Idempotency-Key', () => {
  test('20 concurrent POSTs with one key and one body: one row, one event; every 2xx identical, the rest 409 IN_USE or replays', async () => {
    const k = freshKey('post20');
    const body = { nombre: uniqueNombre('Una vez'), precio: 7.25, cantidadEnStock: 2 };
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => stack.request('POST', '/api/productos', { body, headers: key({}, k) })),
    );

    const created = responses.filter((r) => r.status === 201);
    const inUse = responses.filter((r) => r.status === 409);
    expect(created.length + inUse.length).toBe(20);
    expect(created.filter((r) => r.headers.get('idempotent-replayed') === null)).toHaveLength(1);
    for (const r of created.filter((c) => c.headers.get('idempotent-replayed') !== null))
      expect(r.headers.get('idempotent-replayed')).toBe('true');
    const [first] = created;
    for (const r of created) {
      expect(r.text).toBe(first!.text);
      expect(r.headers.get('location')).toBe(first!.headers.get('location'));
      expect(r.headers.get('etag')).toBe('"1"');
    }
    for (const r of inUse) {
      expect(r.body).toEqual({ error: 'IDEMPOTENCY_KEY_IN_USE', mensaje: expect.any(String) });
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
    }

    const id = first!.body.id as number;
    expect(first!.headers.get('location')).toBe(`/api/productos/${id}`);
    expect(await productoIdsNamed(stack.productoDb, body.nombre)).toEqual([id]);
    const events = await stack.settledEvents();
    expect(
      events
        .filter((e) => eventName(e) === 'ProductoCreado' && e.body.data.nombre === body.nombre)
        .map((e) => e.body.subject),
    ).toEqual([`/productos/${id}`]);

    // Once the burst is over, a retry is a replay of the very same answer.
    const retry = await stack.request('POST', '/api/productos', { body, headers: key({}, k) });
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.text).toBe(first!.text);
    process.stdout.write(
      `safe-writes: 20 concurrent keyed POSTs: ${created.length} x 201 (${created.length - 1} replays), ${inUse.length} x 409\n`,
    );
  });

  test('concurrent repeats of a completed keyed write all replay it: none is refused as in use', async () => {
    const k = freshKey('repeats');
    const body = { nombre: uniqueNombre('Repetido'), precio: 4, cantidadEnStock: 4 };
    const first = await stack.request('POST', '/api/productos', { body, headers: key({}, k) });
    expect(first.status).toBe(201);
    const repeats = await Promise.all(
      Array.from({ length: 10 }, () => stack.request('POST', '/api/productos', { body, headers: key({}, k) })),
    );
    expect(repeats.map((r) => [r.status, r.headers.get('idempotent-replayed'), r.text])).toEqual(
      repeats.map(() => [201, 'true', first.text]),
    );
  });

  test('the same key with another body is 422 IDEMPOTENCY_KEY_REUSED and writes nothing; the same key on another route is its own', async () => {
    const k = freshKey('reuse');
    const body = { nombre: uniqueNombre('Reuso'), precio: 5, cantidadEnStock: 1 };
    const first = await stack.request('POST', '/api/productos', { body, headers: key({}, k) });
    expect(first.status).toBe(201);
    const settled = await probe.settledSnapshot();

    for (const other of [
      { ...body, precio: 6 },
      { ...body, nombre: `${body.nombre} bis` },
      { ...body, descripcion: 'otra' },
    ]) {
      const res = await stack.request('POST', '/api/productos', { body: other, headers: key({}, k) });
      expect(res.status).toBe(422);
      expect(res.body).toEqual({
        error: 'IDEMPOTENCY_KEY_REUSED',
        mensaje: expect.any(String),
        detalles: [{ campo: 'Idempotency-Key', mensaje: expect.any(String) }],
      });
      expect(res.headers.get('idempotent-replayed')).toBeNull();
    }
    expect(await probe.settledSnapshot()).toEqual(settled);
    expect(await productoIdsNamed(stack.productoDb, `${body.nombre} bis`)).toEqual([]);

    // Another route (another gRPC method): the key is new there, and executes.
    const put = await stack.request('PUT', `/api/productos/${first.body.id}`, {
      body: { precio: 8 },
      headers: key({}, k),
    });
    expect(put.status).toBe(200);
    expect(put.headers.get('idempotent-replayed')).toBeNull();
    expect(put.body.version).toBe(2);
    const bodega = await stack.request('POST', '/api/bodegas', {
      body: { nombre: uniqueNombre('Reuso'), capacidad: 3 },
      headers: key({}, k),
    });
    expect(bodega.status).toBe(201);
    expect(bodega.headers.get('idempotent-replayed')).toBeNull();
    // And each route replays its own.
    const putAgain = await stack.request('PUT', `/api/productos/${first.body.id}`, {
      body: { precio: 8 },
      headers: key({}, k),
    });
    expect(putAgain.headers.get('idempotent-replayed')).toBe('true');
    expect(putAgain.text).toBe(put.text);
    expect(await sqlVersion(first.body.id as number)).toBe(2);
  });

  test('a record kept 24 h by default; once expired, the key executes anew', async () => {
    const k = freshKey('expiry');
    const body = { nombre: uniqueNombre('Caduca'), precio: 1.5, cantidadEnStock: 1 };
    const first = await stack.request('POST', '/api/productos', { body, headers: key({}, k) });
    expect(first.status).toBe(201);

    const scope = idempotencyScope('CreateProducto', k);
    const [[record]] = (await stack.productoDb.raw(
      'SELECT method, TIMESTAMPDIFF(SECOND, created_at, expires_at) AS ttl FROM idempotency_keys WHERE scope_hash = ?',
      [scope],
    )) as [{ method: string; ttl: number }[]];
    expect(record).toEqual({ method: 'CreateProducto', ttl: expect.any(Number) });
    expect(Math.abs(Number(record!.ttl) - 86_400)).toBeLessThanOrEqual(2);

    const replay = await stack.request('POST', '/api/productos', { body, headers: key({}, k) });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.id).toBe(first.body.id);

    const [aged] = (await stack.productoDb.raw(
      'UPDATE idempotency_keys SET expires_at = CURRENT_TIMESTAMP(3) - INTERVAL 1 SECOND WHERE scope_hash = ?',
      [scope],
    )) as [{ affectedRows: number }];
    expect(aged.affectedRows).toBe(1);

    const again = await stack.request('POST', '/api/productos', { body, headers: key({}, k) });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
    expect(again.body.id).not.toBe(first.body.id);
    expect(await productoIdsNamed(stack.productoDb, body.nombre)).toEqual([first.body.id, again.body.id]);
    // The new record replays the new product.
    const replayNew = await stack.request('POST', '/api/productos', { body, headers: key({}, k) });
    expect(replayNew.headers.get('idempotent-replayed')).toBe('true');
    expect(replayNew.body.id).toBe(again.body.id);
  });

  test('a malformed key (empty, 256 characters, a space, non-ASCII) is 400 naming Idempotency-Key, and nothing is written; 255 characters is fine', async () => {
    const producto = await crearProducto(stack);
    const before = await probe.settledSnapshot();
    const body = { nombre: uniqueNombre('Mala clave'), precio: 1, cantidadEnStock: 1 };
    for (const bad of ['', 'x'.repeat(256), 'con espacio', 'año-2026']) {
      // node:http sends the header as Latin-1 bytes, as a client would; fetch refuses some of these.
      const post = await rawRequest(stack.baseUrl, {
        method: 'POST',
        path: '/api/productos',
        headers: { authorization: stack.auth, 'content-type': 'application/json', 'idempotency-key': bad },
        body: JSON.stringify(body),
        timeoutMs: 10_000,
      });
      expectBadKey({ status: post.status, body: post.body, headers: new Headers(), text: post.text });
      const put = await rawRequest(stack.baseUrl, {
        method: 'PUT',
        path: `/api/productos/${producto.id}`,
        headers: { authorization: stack.auth, 'content-type': 'application/json', 'idempotency-key': bad },
        body: JSON.stringify({ precio: 99 }),
        timeoutMs: 10_000,
      });
      expectBadKey({ status: put.status, body: put.body, headers: new Headers(), text: put.text });
    }
    expect(await probe.settledSnapshot()).toEqual(before);

    const longest = await stack.request('POST', '/api/productos', { body, headers: key({}, 'k'.repeat(254) + '~') });
    expect(longest.status).toBe(201);
  });
});

describe('a keyed write whose caller got 504', () => {
  test('LOCK TABLES holds the insert past a 1 s deadline: 504, then 409 while it waits, and once unlocked it rolls back: the retry executes it, once', async () => {
    const slow = await startSafeWriteStack('bff_safe_writes_504', { GRPC_DEADLINE_MS: '1000' });
    const locker: Knex = createDb(slow.databaseUrls.producto, { poolMax: 1 });
    try {
      const k = freshKey('deadline');
      const body = { nombre: uniqueNombre('Tras 504'), precio: 3.3, cantidadEnStock: 3 };
      // One dedicated connection (a transaction owns it) holds the table lock.
      const trx = await locker.transaction();
      let unlocked = false;
      const unlock = async () => {
        if (unlocked) return;
        unlocked = true;
        await trx.raw('UNLOCK TABLES');
        await trx.commit();
      };
      try {
        await trx.raw('LOCK TABLES productos WRITE');
        const first = await slow.request('POST', '/api/productos', { body, headers: key({}, k) });
        expect(first.status).toBe(504);
        expect(first.body.error).toBe('GATEWAY_TIMEOUT');

        // The first write still waits inside its transaction, holding the key.
        const during = await slow.request('POST', '/api/productos', { body, headers: key({}, k) });
        expect(during.status).toBe(409);
        expect(during.body.error).toBe('IDEMPOTENCY_KEY_IN_USE');
        expect(Number(during.headers.get('retry-after'))).toBeGreaterThan(0);
      } finally {
        await unlock();
      }

      // Unlocked, the first write's insert goes through, but its caller is gone: it rolls back instead of
      // committing, releasing the key. Until then a retry is still refused as in use.
      const retry = await waitFor(async () => {
        const res = await slow.request('POST', '/api/productos', { body, headers: key({}, k) });
        if (res.status === 409 && res.body.error === 'IDEMPOTENCY_KEY_IN_USE') return undefined;
        return res;
      }, 'the first write to end');
      expect(retry.status).toBe(201);
      // Executed, not replayed: the write answered 504 left nothing behind.
      expect(retry.headers.get('idempotent-replayed')).toBeNull();
      expect(retry.body).toMatchObject({
        nombre: body.nombre,
        precio: body.precio,
        cantidadEnStock: body.cantidadEnStock,
        version: 1,
      });
      const id = retry.body.id as number;
      expect(retry.headers.get('location')).toBe(`/api/productos/${id}`);

      expect(await productoIdsNamed(slow.productoDb, body.nombre)).toEqual([id]);
      const created = (await slow.settledEvents()).filter((e) => eventName(e) === 'ProductoCreado');
      expect(created.map((e) => e.body.subject)).toEqual([`/productos/${id}`]);
      const again = await slow.request('POST', '/api/productos', { body, headers: key({}, k) });
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.body.id).toBe(id);

      const metrics = await scrapeMetrics(slow.metricsPort);
      expect(
        metricSample(metrics, 'bff_safe_write_outcomes_total', { outcome: 'idempotency_key_in_use' }),
      ).toBeGreaterThanOrEqual(1);
      expect(metricSample(metrics, 'bff_safe_write_outcomes_total', { outcome: 'replayed' })).toBeGreaterThanOrEqual(1);
    } finally {
      await locker.destroy();
      await slow.close();
    }
  }, 60_000);
});

describe('a keyed forced warehouse delete', () => {
  /** A warehouse holding three products; returns its id and theirs. */
  async function bodegaConTres(): Promise<{ bodegaId: number; ids: number[] }> {
    const bodegaId = await crearBodega(stack);
    const ids: number[] = [];
    for (let i = 0; i < 3; i++) ids.push((await crearProducto(stack, { bodegaId })).id);
    return { bodegaId, ids };
  }

  test('a repeat replays the first report, byte for byte; one BodegaEliminada, three ProductoActualizado', async () => {
    const { bodegaId, ids } = await bodegaConTres();
    const k = freshKey('force');
    const path = `/api/bodegas/${bodegaId}?force=true`;
    const first = await stack.request('DELETE', path, { headers: key({}, k) });
    expect(first.status).toBe(200);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(first.body.productosAfectados).toBe(3);
    expect((first.body.detalleProductos as { id: number }[]).map((p) => p.id)).toEqual(ids);

    const again = await stack.request('DELETE', path, { headers: key({}, k) });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(first.text);

    const events = await stack.settledEvents();
    expect(eventsAbout(events, `/bodegas/${bodegaId}`).map(eventName)).toEqual(['BodegaCreada', 'BodegaEliminada']);
    for (const id of ids)
      expect(eventsAbout(events, `/productos/${id}`).map(eventName)).toEqual(['ProductoCreado', 'ProductoActualizado']);
  });

  test('left half done (products unassigned under the key, warehouse still there), the REST retry completes it and reports the three products', async () => {
    const { bodegaId, ids } = await bodegaConTres();
    const k = freshKey('half');

    // What the BFF's first attempt did before failing: UnassignBodega with the key, as the BFF's user.
    const client = new ProductoServiceClient(stack.productoSvcAddr, credentials.createInsecure());
    let direct: UnassignBodegaResponse;
    try {
      const metadata = new Metadata();
      metadata.set(USUARIO_METADATA_KEY, TEST_USER);
      direct = await new Promise<UnassignBodegaResponse>((resolve, reject) =>
        client.unassignBodega(
          UnassignBodegaRequest.fromPartial({ bodegaId, requestId: k }),
          metadata,
          { deadline: Date.now() + 10_000 },
          (err: ServiceError | null, res) => (err ? reject(err) : resolve(res)),
        ),
      );
    } finally {
      client.close();
    }
    expect(direct.productos.map((p) => p.id)).toEqual(ids);
    expect((await stack.request('GET', `/api/bodegas/${bodegaId}`)).status).toBe(200);

    const retry = await stack.request('DELETE', `/api/bodegas/${bodegaId}?force=true`, { headers: key({}, k) });
    expect(retry.status).toBe(200);
    expect(retry.body.productosAfectados).toBe(3);
    expect(retry.body.detalleProductos).toEqual(
      ids.map((id): unknown => expect.objectContaining({ id, bodegaId: null, version: 2 })),
    );
    expect((await stack.request('GET', `/api/bodegas/${bodegaId}`)).status).toBe(404);
    // It executed the delete, so it is not a replay, although its unassignment step was.
    expect(retry.headers.get('idempotent-replayed')).toBeNull();

    // And now it is all done: the next repeat replays the completed report.
    const again = await stack.request('DELETE', `/api/bodegas/${bodegaId}?force=true`, { headers: key({}, k) });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(retry.text);

    const events = await stack.settledEvents();
    expect(eventsAbout(events, `/bodegas/${bodegaId}`).map(eventName)).toEqual(['BodegaCreada', 'BodegaEliminada']);
    for (const id of ids)
      expect(eventsAbout(events, `/productos/${id}`).map(eventName)).toEqual(['ProductoCreado', 'ProductoActualizado']);
  });
});

describe('GraphQL', () => {
  async function gql(query: string, variables: Record<string, unknown> = {}) {
    const res = await stack.request('POST', '/api/graphql', { body: { query, variables } });
    expect(res.status).toBe(200);
    expect(res.body.errors).toBeUndefined();
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- GraphQL data is read field by field
    return res.body.data as Record<string, any>;
  }
  const CREAR = `mutation($input: ProductoInput!, $k: String) {
    crearProducto(input: $input, idempotencyKey: $k) { success error producto { id nombre version } } }`;
  const ACTUALIZAR = `mutation($input: ProductoUpdateInput!) {
    actualizarProducto(input: $input) { success error producto { id cantidad version } } }`;

  test('version on Producto and Bodega; a stale version is success false PRECONDITION_FAILED; one idempotencyKey creates once, and refuses another input', async () => {
    const k = freshKey('gql');
    const input = { nombre: uniqueNombre('GraphQL clave'), precio: 2.5, cantidad: 4 };
    const first = (await gql(CREAR, { input, k })).crearProducto;
    expect(first).toMatchObject({ success: true, error: null, producto: { nombre: input.nombre, version: 1 } });
    const again = (await gql(CREAR, { input, k })).crearProducto;
    expect(again).toEqual(first);
    const id = first.producto.id as string;
    expect(await productoIdsNamed(stack.productoDb, input.nombre)).toEqual([Number(id)]);

    const reused = (await gql(CREAR, { input: { ...input, precio: 3 }, k })).crearProducto;
    expect(reused.success).toBe(false);
    expect(reused.producto).toBeNull();
    expect(reused.error).toMatch(/^IDEMPOTENCY_KEY_REUSED:/);
    expect(await productoIdsNamed(stack.productoDb, input.nombre)).toEqual([Number(id)]);

    expect((await gql('query($id: ID!) { producto(id: $id) { version } }', { id })).producto).toEqual({ version: 1 });
    const updated = (await gql(ACTUALIZAR, { input: { id, cantidad: 3, version: 1 } })).actualizarProducto;
    expect(updated).toMatchObject({ success: true, producto: { cantidad: 3, version: 2 } });
    const stale = (await gql(ACTUALIZAR, { input: { id, cantidad: 2, version: 1 } })).actualizarProducto;
    expect(stale.success).toBe(false);
    expect(stale.producto).toBeNull();
    expect(stale.error).toMatch(/^PRECONDITION_FAILED:/);
    const deleted = (
      await gql('mutation($id: ID!) { eliminarProducto(id: $id, version: 1) { success error } }', { id })
    ).eliminarProducto;
    expect(deleted.success).toBe(false);
    expect(deleted.error).toMatch(/^PRECONDITION_FAILED:/);
    expect((await gql('query($id: ID!) { producto(id: $id) { cantidad version } }', { id })).producto).toEqual({
      cantidad: 3,
      version: 2,
    });
    expect(await sqlVersion(Number(id))).toBe(2);

    const bodega = (
      await gql('mutation($input: BodegaInput!) { crearBodega(input: $input) { bodega { id version } } }', {
        input: { nombre: uniqueNombre('GraphQL bodega'), ubicacion: 'Lugo', capacidad: 5 },
      })
    ).crearBodega.bodega;
    expect(bodega.version).toBe(1);
    const bodegaActualizada = (
      await gql(
        'mutation($input: BodegaUpdateInput!) { actualizarBodega(input: $input) { success error bodega { version } } }',
        {
          input: { id: bodega.id, capacidad: 6, version: 1 },
        },
      )
    ).actualizarBodega;
    expect(bodegaActualizada).toMatchObject({ success: true, bodega: { version: 2 } });
    const bodegaVieja = (
      await gql('mutation($id: ID!) { eliminarBodega(id: $id, version: 1) { success error } }', { id: bodega.id })
    ).eliminarBodega;
    expect(bodegaVieja.success).toBe(false);
    expect(bodegaVieja.error).toMatch(/^PRECONDITION_FAILED:/);
    expect((await gql('query($id: ID!) { bodega(id: $id) { version } }', { id: bodega.id })).bodega).toEqual({
      version: 2,
    });
  });
});

test('bff_safe_write_outcomes_total counts each replay, version mismatch and reused key (scraped from METRICS_PORT)', async () => {
  const OUTCOMES = ['replayed', 'version_mismatch', 'idempotency_key_in_use', 'idempotency_key_reused'];
  const scrape = async () => {
    const text = await scrapeMetrics(stack.metricsPort);
    return Object.fromEntries(
      OUTCOMES.map((o) => [o, metricSample(text, 'bff_safe_write_outcomes_total', { outcome: o }) ?? NaN]),
    );
  };
  // What the tests above left: each outcome was seen.
  const before = await scrape();
  process.stdout.write(
    `safe-writes: bff_safe_write_outcomes_total after the suite: ${OUTCOMES.map((o) => `${o}=${before[o]}`).join(' ')}\n`,
  );
  expect(before.replayed).toBeGreaterThanOrEqual(1);
  expect(before.version_mismatch).toBeGreaterThanOrEqual(1);
  expect(before.idempotency_key_reused).toBeGreaterThanOrEqual(1);

  // And one more of each counts exactly one.
  const k = freshKey('metric');
  const body = { nombre: uniqueNombre('Métrica'), precio: 1, cantidadEnStock: 1 };
  const created = await stack.request('POST', '/api/productos', { body, headers: key({}, k) });
  expect(created.status).toBe(201);
  expect(
    (await stack.request('POST', '/api/productos', { body, headers: key({}, k) })).headers.get('idempotent-replayed'),
  ).toBe('true');
  expect(
    (await stack.request('POST', '/api/productos', { body: { ...body, precio: 2 }, headers: key({}, k) })).status,
  ).toBe(422);
  const stale = await stack.request('PUT', `/api/productos/${created.body.id}`, {
    body: { precio: 3 },
    headers: { 'if-match': '"7"' },
  });
  expect(stale.status).toBe(412);
  // 412s the BFF decides itself count too: `*` on a missing record, and a warehouse delete's early check.
  expect(
    (await stack.request('PUT', '/api/productos/987654', { body: { precio: 3 }, headers: { 'if-match': '*' } })).status,
  ).toBe(412);
  const bodegaId = await crearBodega(stack);
  expect(
    (await stack.request('DELETE', `/api/bodegas/${bodegaId}?force=true`, { headers: { 'if-match': '"9"' } })).status,
  ).toBe(412);
  const after = await scrape();
  expect(Object.fromEntries(OUTCOMES.map((o) => [o, after[o]! - before[o]!]))).toEqual({
    replayed: 1,
    version_mismatch: 3,
    idempotency_key_in_use: 0,
    idempotency_key_reused: 1,
  });
});
