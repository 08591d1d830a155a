import { everyWithLimit } from '../src/every-with-limit';

describe('everyWithLimit', () => {
  it('holds for no items, testing nothing', async () => {
    const test = jest.fn(() => Promise.resolve(false));
    expect(await everyWithLimit([], 8, test)).toBe(true);
    expect(test).not.toHaveBeenCalled();
  });

  it.each([0, -1, 1.5, NaN])('refuses a limit of %p', async (limit) => {
    await expect(everyWithLimit([1], limit, () => Promise.resolve(true))).rejects.toThrow(RangeError);
  });

  it('settles only once the tests in flight have, then throws the first error', async () => {
    const terminados: number[] = [];
    const test = async (n: number) => {
      await new Promise((resolve) => setImmediate(resolve));
      terminados.push(n);
      if (n >= 2) throw new Error(`fallo ${n}`);
      return true;
    };
    await expect(everyWithLimit([1, 2, 3, 4, 5], 3, test)).rejects.toThrow('fallo 2');
    expect(terminados).toEqual([1, 2, 3, 4]);
  });
});
