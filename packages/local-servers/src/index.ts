/**
 * Private server processes on this machine: npm start's private MariaDB and
 * NATS (docs/contract.md §8.6) and the tests' own servers (testkit's
 * startPrivateNatsServer, the fault suite's mariadbd, its Prometheus).
 */
export { startPrivateServer, type PrivateServer, type PrivateServerOptions } from './private-server';
export { startNatsServer, type NatsServerOptions } from './nats';
export { startMariaDb, type MariaDbOptions } from './mariadb';
export { findOnPath, findProgram, PROGRAMS, type ProgramName } from './programs';
export {
  CHART_TARGET,
  chartAuthorizationYaml,
  deadLetterStreamName,
  natsPasswordVariables,
  natsServerAuthorization,
  natsUsers,
  ownedDurables,
  type NatsAuthorizationTarget,
  type NatsUserEntry,
} from './nats-authorization';
