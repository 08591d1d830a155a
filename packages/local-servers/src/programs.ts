/**
 * Where the server programs are on this machine. Debian puts `mariadbd` and
 * `nats-server` in /usr/sbin, which is not on a non-root user's PATH, so the
 * usual sbin folders are searched after PATH. A variable naming the program
 * (NATS_SERVER_BIN, MARIADBD_BIN, MARIADB_INSTALL_DB_BIN) wins, and when it
 * names no executable file the program counts as not installed.
 */
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/** The programs the private servers run, with the variable that names each one's path. */
export const PROGRAMS = {
  'nats-server': 'NATS_SERVER_BIN',
  mariadbd: 'MARIADBD_BIN',
  'mariadb-install-db': 'MARIADB_INSTALL_DB_BIN',
} as const;
export type ProgramName = keyof typeof PROGRAMS;

const SBIN_FOLDERS = [
  '/usr/sbin',
  '/usr/local/sbin',
  '/sbin',
  '/opt/homebrew/sbin',
  '/opt/homebrew/bin',
  '/usr/local/bin',
];

function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** The first executable file called `name` in PATH's folders, then in the usual sbin folders; undefined when none. */
export function findOnPath(name: string, env: NodeJS.ProcessEnv): string | undefined {
  const folders = [...(env.PATH ?? '').split(delimiter).filter(Boolean), ...SBIN_FOLDERS];
  return folders.map((folder) => join(folder, name)).find(isExecutableFile);
}

/**
 * The path of `program`: its variable's value when set (undefined if that is no executable file), else as findOnPath.
 */
export function findProgram(program: ProgramName, env: NodeJS.ProcessEnv): string | undefined {
  const override = env[PROGRAMS[program]];
  if (override !== undefined && override !== '') return isExecutableFile(override) ? override : undefined;
  return findOnPath(program, env);
}
