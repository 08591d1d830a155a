import { createExecutionGuard, nodeCapError } from '../src/graphql/execution-limits';

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
