/**
 * A service whose supervisor dies (SIGKILL) loses the reader of its stdout
 * while it may be logging; it must still exit after its shutdown instead of
 * retrying a write to a dead pipe forever (seen with pino's buffered
 * destination: 3 processes in 6 never ended).
 */
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { waitFor } from '@inventario/testkit';

const LOGGER = path.join(__dirname, '..', 'dist', 'logger.js');

// Logs constantly; when the parent is gone, logs its goodbye and exits like a service's main does (listenForStop).
const CHILD = `
const { createLogger } = require(${JSON.stringify(LOGGER)});
const logger = createLogger('t', 'info');
const tick = setInterval(() => logger.info({ x: 'y'.repeat(200) }, 'tick'), 1);
process.on('disconnect', () => {
  for (let i = 0; i < 50; i++) logger.info('stopping ' + i);
  clearInterval(tick);
  logger.info('shutdown complete');
  logger.flush();
  process.exit(0);
});
`;

// Starts the child with an IPC channel and a stdout pipe only it reads, prints its pid, then dies by SIGKILL.
const PARENT = `
const { spawn } = require('node:child_process');
const child = spawn(process.execPath, ['-e', ${JSON.stringify(CHILD)}], { stdio: ['ignore', 'pipe', 'pipe', 'ipc'], detached: true });
child.stdout.resume();
child.stderr.resume();
process.stdout.write(child.pid + '\\n');
setTimeout(() => process.kill(process.pid, 'SIGKILL'), 400);
`;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

test('a process logging through the platform logger exits after its parent is SIGKILLed mid-write', async () => {
  const pids: number[] = [];
  for (let run = 0; run < 4; run++) {
    const parent = spawn(process.execPath, ['-e', PARENT], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    parent.stdout.on('data', (c: Buffer) => (out += c.toString()));
    await new Promise((resolve) => parent.once('close', resolve));
    pids.push(Number(out.trim()));
  }
  try {
    await waitFor(() => pids.every((pid) => !alive(pid)), 'every child to exit', 15_000);
  } finally {
    for (const pid of pids) if (alive(pid)) process.kill(pid, 'SIGKILL');
  }
  expect(pids.filter(alive)).toEqual([]);
});
