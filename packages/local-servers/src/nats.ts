import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { startPrivateServer, type PrivateServer } from './private-server';

export interface NatsServerOptions {
  /** The nats-server program (see findProgram). */
  command: string;
  /** Listens on 127.0.0.1:port. */
  port: number;
  /** The server's directory: its pid file and, with JetStream, its store (`<dir>/jetstream`). */
  dir: string;
  /** Run with JetStream; default true. */
  jetstream?: boolean;
  /**
   * A configuration file (`-c`); the command-line address and port still apply over it, and JetStream must then be
   * configured in it.
   */
  configFile?: string;
  /** Environment of the server: the variables its configuration reads (`password: $VAR`). */
  env?: Record<string, string>;
  /** As startPrivateServer's: false keeps `dir` (the store) when the server is disposed of. */
  removeDir?: boolean;
}

/** A nats-server on 127.0.0.1:`port`, ready once it logs so. */
export function startNatsServer(options: NatsServerOptions): Promise<PrivateServer> {
  const pidFile = join(options.dir, 'nats-server.pid');
  mkdirSync(options.dir, { recursive: true });
  const mode =
    options.configFile !== undefined
      ? ['-c', options.configFile]
      : options.jetstream !== false
        ? ['-js', '-sd', options.dir]
        : [];
  return startPrivateServer({
    name: `nats-server on ${options.port}`,
    command: options.command,
    args: ['-a', '127.0.0.1', '-p', String(options.port), '-P', pidFile, ...mode],
    env: options.env,
    readyText: 'Server is ready',
    // On a loaded machine a JetStream server recovering its store takes a while.
    startTimeoutMs: 30_000,
    stopGraceMs: 5000,
    dir: options.dir,
    pidFile,
    removeDir: options.removeDir,
  });
}
