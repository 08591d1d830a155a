import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/**
 * Ports for tests that choose a port, release it and bind it later (a
 * service started with it; a server restarted on the port it had).
 *
 * They come from OUTSIDE the kernel's ephemeral range on purpose. Every
 * listen on port 0 anywhere on the machine (each test's in-process servers,
 * the other jest worker, other runs) and every outgoing connection draws
 * from that range, so a port taken from it and released is free for any of
 * them to grab before the test binds it again: the later bind then fails
 * with EADDRINUSE. (On Linux a listen on port 0 lands on one of the ~7,000
 * odd ports of the range's lower half, so a released port is soon handed
 * out again; a restart in a hook that hits this fails the whole suite.)
 * Outside the range only a process asking for that very number can take
 * it: another freePort picking the same one at random among ~12,000.
 */

/** The lowest port handed out: above the registered ports our stack and its tools use (3306, 4222, 8080, 9100...). */
const LOWEST = 20_000;
const HIGHEST = 65_535;

/** Linux's default ephemeral range, when /proc does not say. */
const DEFAULT_EPHEMERAL: [number, number] = [32_768, 60_999];

/** The kernel's ephemeral range (`net.ipv4.ip_local_port_range`). */
export function ephemeralPortRange(): [number, number] {
  try {
    const [low, high] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (Number.isInteger(low) && Number.isInteger(high) && low! <= high!) return [low!, high!];
  } catch {
    // not Linux: assume its default
  }
  return DEFAULT_EPHEMERAL;
}

/** The ports freePort chooses from: [LOWEST, HIGHEST] minus the ephemeral range. */
function candidateRanges(): [number, number][] {
  const [low, high] = ephemeralPortRange();
  return [
    [LOWEST, Math.min(HIGHEST, low - 1)],
    [Math.max(LOWEST, high + 1), HIGHEST],
  ].filter(([from, to]) => from! <= to!) as [number, number][];
}

function randomCandidate(ranges: [number, number][]): number {
  const sizes = ranges.map(([from, to]) => to - from + 1);
  let pick = Math.floor(Math.random() * sizes.reduce((a, b) => a + b, 0));
  for (const [i, [from]] of ranges.entries()) {
    if (pick < sizes[i]!) return from + pick;
    pick -= sizes[i]!;
  }
  throw new Error('freePort: no candidate ports');
}

/** Whether nothing listens on 127.0.0.1:port (nor on every interface) right now. */
function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

/** Ports this module has handed out: each test asking for several (PORT, METRICS_PORT, ...) gets distinct ones. */
const handedOut = new Set<number>();

/**
 * A TCP port that is free now, outside the ephemeral range (see above), and
 * never one this module handed out before.
 */
export async function freePort(): Promise<number> {
  const ranges = candidateRanges();
  if (ranges.length === 0) throw new Error('freePort: the ephemeral port range leaves no port from 20000 up');
  for (let attempt = 0; attempt < 1000; attempt++) {
    const port = randomCandidate(ranges);
    if (handedOut.has(port) || !(await bindable(port))) continue;
    handedOut.add(port);
    return port;
  }
  throw new Error('freePort: no free port found in 1000 attempts');
}
