import { Writable } from 'node:stream';

/**
 * Destinations for a logger under test (platform's `createLogger(name, level, destination)`), so a test reads
 * what the code logged. pino writes one whole line per write.
 */

/** Each chunk the logger writes, as its text, appended to `into`. */
export function logTextSink(into: string[]): Writable {
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      into.push(chunk.toString('utf8'));
      done();
    },
  });
}

/** Each JSON line the logger writes, parsed, appended to `into` (blank lines skipped). */
export function logLineSink<T = Record<string, unknown>>(into: T[]): Writable {
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line.trim() !== '') into.push(JSON.parse(line) as T);
      done();
    },
  });
}
