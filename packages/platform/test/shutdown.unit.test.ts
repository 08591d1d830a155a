/** The shutdown sequence: steps in order, failures logged, a hard deadline. */
import { createLogger, createShutdown } from '@inventario/platform';

const logger = createLogger('test', 'silent');

describe('createShutdown', () => {
  it('runs every step in order, goes on past a failing step, and exits 0', async () => {
    const ran: string[] = [];
    const exit = jest.fn();
    const shutdown = createShutdown({
      logger,
      deadlineMs: 5000,
      exit,
      steps: [
        { name: 'a', run: () => void ran.push('a') },
        { name: 'b', run: () => Promise.reject(new Error('broken')) },
        { name: 'c', run: () => Promise.resolve(void ran.push('c')) },
      ],
    });
    await shutdown();
    expect(ran).toEqual(['a', 'c']);
    expect(exit).toHaveBeenCalledTimes(1);
    expect(exit).toHaveBeenCalledWith(0);
  });

  it('flushes tracing after every step, even a failed one', async () => {
    const ran: string[] = [];
    const shutdown = createShutdown({
      logger,
      deadlineMs: 5000,
      exit: jest.fn(),
      tracing: { shutdown: () => Promise.resolve(void ran.push('tracing')) },
      steps: [
        { name: 'server', run: () => void ran.push('server') },
        { name: 'pool', run: () => Promise.reject(new Error('broken')) },
      ],
    });
    await shutdown();
    expect(ran).toEqual(['server', 'tracing']);
  });

  it('runs the sequence once however often it is triggered', async () => {
    let runs = 0;
    const exit = jest.fn();
    const shutdown = createShutdown({
      logger,
      deadlineMs: 5000,
      exit,
      steps: [{ name: 'once', run: () => void runs++ }],
    });
    await Promise.all([shutdown(), shutdown(), shutdown()]);
    expect(runs).toBe(1);
    expect(exit).toHaveBeenCalledTimes(1);
  });

  it('exits 1 when a step outlives the deadline', async () => {
    const exit = jest.fn();
    let release!: () => void;
    const hanging = new Promise<void>((resolve) => (release = resolve));
    const shutdown = createShutdown({ logger, deadlineMs: 50, exit, steps: [{ name: 'stuck', run: () => hanging }] });
    const done = shutdown();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(exit).toHaveBeenCalledWith(1);
    release();
    await done;
  });
});
