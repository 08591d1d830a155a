// The unit layer runs without MariaDB, NATS or any server: a test that opens a
// TCP connection (a driver, fetch, a gRPC client) fails here at once with the
// fix, instead of passing only where the servers happen to run. Such a test
// belongs in the integration layer: name it `*.test.ts` (docs/testing.md).
// Node's own modules are shared by every test file a jest worker runs, so the
// refusal is put in place for this file only and taken away after it: left in
// place, it failed every integration file that ran next in the same worker.
/* global beforeAll, afterAll */
const net = require('node:net');

const connect = net.Socket.prototype.connect;
function unitLayerConnect(...args) {
  // net.connect passes its arguments already normalised, as [options, callback].
  const first = Array.isArray(args[0]) ? args[0][0] : args[0];
  const options = typeof first === 'object' && first !== null ? first : { port: first, host: args[1] };
  if (options.path === undefined) {
    throw new Error(
      `A unit test opened a TCP connection (${options.host ?? 'localhost'}:${options.port}). ` +
        'Unit tests (*.unit.test.ts) run without MariaDB, NATS or any server; rename this file to *.test.ts (integration).',
    );
  }
  return connect.apply(this, args);
}

beforeAll(() => {
  net.Socket.prototype.connect = unitLayerConnect;
});
afterAll(() => {
  net.Socket.prototype.connect = connect;
});
