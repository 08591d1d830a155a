/**
 * The one command that installs the missing server programs, for the
 * machine's package manager: what `npm start` prints when MariaDB or NATS is
 * neither answering nor installed (docs/contract.md §8.6).
 */
import { findOnPath, type ProgramName } from '@inventario/local-servers';

interface PackageManager {
  /** The install command, before the package names. */
  install: string;
  /** Whether it needs root (prefixed with sudo for anyone else). */
  asRoot: boolean;
  /** The package that brings each program. */
  packages: Record<ProgramName, string>;
}

const MARIADB_AND_NATS = (mariadb: string) => ({
  mariadbd: mariadb,
  'mariadb-install-db': mariadb,
  'nats-server': 'nats-server',
});

/** In the order they are looked for: a machine may have several (brew on Linux beside apt-get: the system's wins). */
export const PACKAGE_MANAGERS: Record<string, PackageManager> = {
  'apt-get': { install: 'apt-get install -y', asRoot: true, packages: MARIADB_AND_NATS('mariadb-server') },
  dnf: { install: 'dnf install -y', asRoot: true, packages: MARIADB_AND_NATS('mariadb-server') },
  zypper: { install: 'zypper install -y', asRoot: true, packages: MARIADB_AND_NATS('mariadb') },
  pacman: { install: 'pacman -S --needed', asRoot: true, packages: MARIADB_AND_NATS('mariadb') },
  apk: { install: 'apk add', asRoot: true, packages: MARIADB_AND_NATS('mariadb') },
  brew: { install: 'brew install', asRoot: false, packages: MARIADB_AND_NATS('mariadb') },
};

/** The first package manager found on this machine (PATH and the sbin folders). */
export function detectPackageManager(env: NodeJS.ProcessEnv): string | undefined {
  return Object.keys(PACKAGE_MANAGERS).find((name) => findOnPath(name, env) !== undefined);
}

/**
 * The command that installs `programs` with `manager`, e.g.
 * `sudo apt-get install -y mariadb-server nats-server`; undefined for an
 * unknown manager.
 */
export function installCommand(
  manager: string | undefined,
  programs: readonly ProgramName[],
  isRoot: boolean,
): string | undefined {
  const pm = manager === undefined ? undefined : PACKAGE_MANAGERS[manager];
  if (!pm) return undefined;
  const packages = [...new Set(programs.map((p) => pm.packages[p]))];
  return `${pm.asRoot && !isRoot ? 'sudo ' : ''}${pm.install} ${packages.join(' ')}`;
}
