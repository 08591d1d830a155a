/**
 * The one spawner of the tests (and platform's readyMessage under it): a
 * process is ready on its IPC ready message; one that exits first, or stays
 * silent past the timeout, fails the start with its last output and is gone.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { READY_MESSAGE_TYPE } from '@inventario/platform';
import { killAllServiceProcesses, runCommand, startProcess } from '@inventario/testkit';

const dir = mkdtempSync(join(tmpdir(), 'testkit-spawner-'));

/** A node script with `body` as its code, its path. */
function script(name: string, body: string): string {
  const file = join(dir, `${name}.js`);
  writeFileSync(file, body);
  return file;
}

afterAll(() => killAllServiceProcesses());

describe('startProcess', () => {
  it('resolves on the ready message, with the JSON log lines read, and stops the process on SIGTERM', async () => {
    const entry = script(
      'ready',
      `process.on('SIGTERM', () => process.exit(0));
       console.log(JSON.stringify({ msg: 'up', port: 7 }));
       process.send({ type: ${JSON.stringify(READY_MESSAGE_TYPE)} });
       setInterval(() => undefined, 1000);`,
    );
    const proc = await startProcess('ready', [entry], {});
    expect(proc.running()).toBe(true);
    expect(await proc.logged('up', { port: 7 })).toEqual({ msg: 'up', port: 7 });
    expect(await proc.stop()).toEqual({ code: 0, signal: null });
    expect(proc.running()).toBe(false);
  });

  it('fails the start of a process that exits before it is ready, quoting its last output', async () => {
    const entry = script('crash', `console.error('no config here'); process.exit(3);`);
    await expect(startProcess('crash', [entry], {})).rejects.toThrow(
      /crash exited \(3\) before it was ready: .*no config here/s,
    );
  });

  it('fails the start of a process that never reports ready in time, and kills it', async () => {
    const entry = script('silent', `setInterval(() => undefined, 1000);`);
    await expect(startProcess('silent', [entry], {}, { readyTimeoutMs: 500 })).rejects.toThrow(
      /silent was not ready within 500 ms/,
    );
  });

  it('passes exactly the given environment, plus PATH and a default LOG_LEVEL', async () => {
    const entry = script(
      'env',
      `console.log(JSON.stringify({ msg: 'env', keys: Object.keys(process.env).sort().join(','), level: process.env.LOG_LEVEL }));
       process.send({ type: ${JSON.stringify(READY_MESSAGE_TYPE)} });`,
    );
    const proc = await startProcess('env', [entry], { ONLY_THIS: '1' });
    const line = await proc.logged('env');
    expect(line.keys).toBe('LOG_LEVEL,ONLY_THIS,PATH');
    expect(line.level).toBe('warn');
    await proc.exited;
  });
});

describe('runCommand', () => {
  it('runs a command that never reports ready to its end: its exit code and all it wrote, as written', async () => {
    const entry = script(
      'command',
      `process.stdout.write('{"total":2}\\nnot json\\n');
       process.stderr.write('a warning\\n');
       process.exitCode = 3;`,
    );
    expect(await runCommand('command', [entry], {})).toEqual({
      code: 3,
      stdout: '{"total":2}\nnot json\n',
      stderr: 'a warning\n',
    });
  });
});
