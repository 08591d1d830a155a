import { createStartupGuard } from '../src/start-up';

describe('createStartupGuard', () => {
  test('a failing step closes what earlier steps opened, newest first, and rethrows its error', async () => {
    const closed: string[] = [];
    const guard = createStartupGuard();
    await guard.step(
      () => 'port',
      (opened) => closed.push(opened),
    );
    await guard.step(
      () => Promise.resolve('pool'),
      (opened) => Promise.resolve().then(() => closed.push(opened)),
    );
    await guard.step(() => 'no close');
    const failure = new Error('the port is in use');
    await expect(guard.step(() => Promise.reject(failure))).rejects.toBe(failure);
    expect(closed).toEqual(['pool', 'port']);
  });

  test('a close that fails does not hide the start-up error or stop the other closes', async () => {
    const closed: string[] = [];
    const guard = createStartupGuard();
    await guard.step(
      () => 'metrics',
      (opened) => closed.push(opened),
    );
    await guard.step(
      () => 'channels',
      () => {
        throw new Error('already closed');
      },
    );
    await expect(
      guard.step(() => {
        throw new Error('bad address');
      }),
    ).rejects.toThrow('bad address');
    expect(closed).toEqual(['metrics']);
  });

  test('nothing is closed while every step succeeds', async () => {
    const closed: string[] = [];
    const guard = createStartupGuard();
    expect(
      await guard.step(
        () => 1,
        () => closed.push('one'),
      ),
    ).toBe(1);
    expect(
      await guard.step(
        () => Promise.resolve(2),
        () => closed.push('two'),
      ),
    ).toBe(2);
    expect(closed).toEqual([]);
  });
});
