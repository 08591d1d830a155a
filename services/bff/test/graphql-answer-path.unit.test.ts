import { buildSchema, type ExecutionResult } from 'graphql';
import { createHandler, type Response } from 'graphql-http';
import { createExecutionGuard, nodeCapError } from '../src/graphql/execution-limits';
import { answerWithoutErrors, ANSWER_TYPE_BY_ACCEPT } from '../src/graphql/handler';
import { createLoaders } from '../src/graphql/loaders';
import type { InventarioApi } from '../src/inventario/model';

/** The guard makes no AbortController until asked for one (issue 23): its failure reaches every listener as before. */
describe("the execution guard's failure, however it is asked for", () => {
  it('a signal asked for before the failure is aborted by it, with it as the reason', () => {
    const guard = createExecutionGuard({ maxNodes: 1, deadlineMs: 60_000 });
    const signal = guard.signal;
    expect(signal.aborted).toBe(false);
    expect(guard.signal).toBe(signal);
    expect(() => guard.count(2)).toThrow(nodeCapError(1).message);
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBe(guard.failure);
  });

  it('a signal asked for after the failure is already aborted, with it as the reason', () => {
    const guard = createExecutionGuard({ maxNodes: 1, deadlineMs: 60_000 });
    guard.expire();
    expect(guard.signal.aborted).toBe(true);
    expect(guard.signal.reason).toBe(guard.failure);
  });

  it('onFailure calls each listener once, at the failure, unless it unsubscribed', () => {
    const guard = createExecutionGuard({ maxNodes: 1, deadlineMs: 60_000 });
    const calls: string[] = [];
    guard.onFailure(() => calls.push(`kept: ${guard.failure?.message}`));
    const unsubscribe = guard.onFailure(() => calls.push('dropped'));
    unsubscribe();
    expect(calls).toEqual([]);
    guard.expire();
    guard.expire();
    expect(() => guard.count(5)).toThrow();
    expect(calls).toEqual([`kept: ${guard.failure?.message}`]);
    guard.onFailure(() => calls.push('late'));
    expect(calls).toHaveLength(1);
  });

  it('a disconnection that is not an AbortSignal fails the request like one', () => {
    const listeners: (() => void)[] = [];
    const gone = {
      aborted: false,
      addEventListener: (_type: 'abort', listener: () => void) => listeners.push(listener),
    };
    const guard = createExecutionGuard({ maxNodes: 10, deadlineMs: 60_000 }, Date.now, gone);
    expect(guard.failure).toBeUndefined();
    for (const listener of listeners) listener();
    expect(guard.failure?.message).toBe('El cliente cerró la conexión antes de la respuesta');
    expect(
      createExecutionGuard({ maxNodes: 10, deadlineMs: 60_000 }, Date.now, { ...gone, aborted: true }).failure,
    ).toBeDefined();
  });
});

/** Answered without graphql-http's JSON.stringify replacer (issue 23), byte for byte as graphql-http answers. */
describe('a result without errors is answered as graphql-http answers it', () => {
  const schema = buildSchema('type Query { a: String, n: [Float], o: Query }');
  const results: ExecutionResult[] = [
    { data: { a: 'ñandú "x" \u2028', n: [1.5, -0, 1e21], o: { a: null, n: null, o: null } } },
    { data: null },
    { data: {} },
  ];
  const answer = (result: ExecutionResult, accept: string | undefined, withOnOperation: boolean) =>
    createHandler({
      schema,
      execute: () => result,
      ...(withOnOperation ? { onOperation: (req, _args, r) => answerWithoutErrors(req.headers, r) } : {}),
    })({
      method: 'POST',
      url: '/graphql',
      headers: { 'content-type': 'application/json', ...(accept === undefined ? {} : { accept }) },
      body: JSON.stringify({ query: '{ a }' }),
      raw: undefined,
      context: undefined,
    });

  it.each([...ANSWER_TYPE_BY_ACCEPT.keys()])('Accept: %s', async (accept) => {
    for (const result of results) {
      const own = answerWithoutErrors(accept === undefined ? {} : { accept }, result);
      expect(own).toBeDefined();
      expect(await answer(result, accept, true)).toEqual(own);
      expect(await answer(result, accept, false)).toEqual(own);
    }
  });

  it('anything else is left to graphql-http', () => {
    const withErrors: ExecutionResult = { data: null, errors: [] };
    expect(answerWithoutErrors({}, withErrors)).toBeUndefined();
    expect(answerWithoutErrors({}, { data: {}, extensions: {} })).toBeUndefined();
    expect(answerWithoutErrors({ accept: 'application/json, text/plain' }, { data: {} })).toBeUndefined();
  });

  it("the Headers form (a get function) is read like Node's", () => {
    const headers = { get: (key: string) => (key === 'accept' ? 'application/graphql-response+json' : null) };
    const own = answerWithoutErrors(headers, { data: {} }) as Response;
    expect(own[1].headers).toEqual({ 'content-type': 'application/graphql-response+json; charset=utf-8' });
  });
});

/** Each loader is made on first use (issue 23); it is then the request's one loader, batching and caching as before. */
describe("a request's loaders, made on first use", () => {
  const bodega = (id: number) => ({ id, nombre: `B${id}` });
  const setUp = () => {
    const calls: number[][] = [];
    const inventario = {
      bodegasPorIds: (_caller: unknown, ids: readonly number[]) => {
        calls.push([...ids]);
        return Promise.resolve(ids.map(bodega));
      },
      productosPorIds: (_caller: unknown, ids: readonly number[]) => {
        calls.push([...ids]);
        return Promise.resolve(ids.map((id) => ({ id })));
      },
    } as unknown as InventarioApi;
    const guard = createExecutionGuard({ maxNodes: 100, deadlineMs: 60_000 });
    return { calls, loaders: createLoaders(inventario, { usuario: 'u' }, guard) };
  };

  it('is one loader: loads of one tick are one call, a second load of an id is cached', async () => {
    const { calls, loaders } = setUp();
    expect(loaders.bodegaPorId).toBe(loaders.bodegaPorId);
    expect(await Promise.all([loaders.bodegaPorId.load(1), loaders.bodegaPorId.load(2)])).toEqual([
      bodega(1),
      bodega(2),
    ]);
    await loaders.bodegaPorId.load(1);
    expect(calls).toEqual([[1, 2]]);
  });

  it('clearAll forgets what the loaders made so far read; a loader made later starts empty', async () => {
    const { calls, loaders } = setUp();
    await loaders.bodegaPorId.load(1);
    loaders.clearAll();
    await loaders.bodegaPorId.load(1);
    expect(calls).toEqual([[1], [1]]);
    loaders.productoPorId.prime(5, { id: 5, nombre: 'primed' } as never);
    expect(await loaders.productoPorId.load(5)).toEqual({ id: 5, nombre: 'primed' });
    loaders.clearAll();
    expect(await loaders.productoPorId.load(5)).toEqual({ id: 5 });
    expect(calls).toEqual([[1], [1], [5]]);
  });
});
