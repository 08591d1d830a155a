import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';

/**
 * The record `npm start` (packages/dev-launcher) keeps of the system it runs, in its data directory
 * (LAUNCHER_DATA_DIR, the repository's .dev-data/ by default) as `sistema.json`, from the moment
 * everything is up until it stops: which services make up that system. `npm run seed` reads it, so
 * it seeds the system the launcher started on whatever ports it was given, and never another
 * (docs/contract.md §8.6). A record whose launcher is no longer alive counts as none.
 */
export interface LauncherRecord {
  /** The launcher's process id. */
  pid: number;
  productoSvcAddr: string;
  bodegaSvcAddr: string;
  /** The BFF's REST base, e.g. `http://127.0.0.1:8080/api`. */
  api: string;
}

export const LAUNCHER_RECORD_FILE = 'sistema.json';

const recordSchema = z.object({
  pid: z.int().positive(),
  productoSvcAddr: z.string().min(1),
  bodegaSvcAddr: z.string().min(1),
  api: z.string().min(1),
});

export function writeLauncherRecord(dir: string, record: LauncherRecord): void {
  writeFileSync(path.join(dir, LAUNCHER_RECORD_FILE), `${JSON.stringify(record, null, 2)}\n`);
}

/** Removes the record, if it is this launcher's (a later launcher's record is left alone). */
export function removeLauncherRecord(dir: string, pid: number): void {
  if (readLauncherRecord(dir, () => true)?.pid === pid) rmSync(path.join(dir, LAUNCHER_RECORD_FILE), { force: true });
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists, under another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The record of a launcher that is still running; undefined when there is none, it is unreadable or its launcher is
 * gone.
 */
export function readLauncherRecord(
  dir: string,
  alive: (pid: number) => boolean = processAlive,
): LauncherRecord | undefined {
  let text: string;
  try {
    text = readFileSync(path.join(dir, LAUNCHER_RECORD_FILE), 'utf8');
  } catch {
    return undefined;
  }
  let parsed;
  try {
    parsed = recordSchema.safeParse(JSON.parse(text));
  } catch {
    return undefined;
  }
  return parsed.success && alive(parsed.data.pid) ? parsed.data : undefined;
}
