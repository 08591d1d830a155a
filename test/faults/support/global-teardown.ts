/** jest globalTeardown of the fault suite: stops the suite's mariadbd and deletes its data dir (also after failed tests). */
import { suiteGlobal } from './suite-mariadb';

export default async function globalTeardown(): Promise<void> {
  const mariadb = suiteGlobal.inventarioFaultsMariaDb;
  suiteGlobal.inventarioFaultsMariaDb = undefined;
  await mariadb?.dispose();
}
