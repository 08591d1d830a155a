// Fails the run at once, with the fix, when MariaDB or NATS is not answering,
// instead of letting every test time out.
const net = require('node:net');

function reachable(host, port) {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port, timeout: 2000 });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(false));
  });
}

module.exports = async () => {
  const mysql = new URL(process.env.TEST_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306');
  const nats = new URL(process.env.TEST_NATS_URL ?? 'nats://127.0.0.1:4222');
  const problems = [];
  if (!(await reachable(mysql.hostname, Number(mysql.port || 3306)))) {
    problems.push(
      `MariaDB is not answering at ${mysql.host} (TEST_MYSQL_URL). Start it: start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd`,
    );
  }
  if (!(await reachable(nats.hostname, Number(nats.port || 4222)))) {
    problems.push(
      `NATS is not answering at ${nats.host} (TEST_NATS_URL). Start it: start-stop-daemon --start --oknodo --background --exec /usr/sbin/nats-server -- -a 127.0.0.1 -p 4222 -js -sd /var/lib/nats-server`,
    );
  }
  if (problems.length > 0) throw new Error(problems.join('\n'));
};
