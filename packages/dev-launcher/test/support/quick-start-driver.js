/**
 * The README's Quick start as a person runs it, from inside whatever network
 * namespace this script is started in (quick-start.test.ts puts it in a new
 * one, where nothing answers on the default ports): starts the launcher with
 * the environment it was given, waits for the banner, lists and creates a
 * product with the dev credentials on the default BFF port, presses Ctrl-C
 * and waits for the launcher to exit. Prints one JSON line with what it saw;
 * the test asserts on it (HTTP on this namespace's loopback is reachable only
 * from in here).
 *
 * `node quick-start-driver.js probe` instead prints the default ports that
 * something already answers on here.
 */
'use strict';
const { spawn } = require('node:child_process');
const { readlinkSync } = require('node:fs');
const { connect } = require('node:net');

const LAUNCHER = require('node:path').join(__dirname, '..', '..', 'dist', 'main.js');
const BANNER_END = 'Press Ctrl-C to stop everything.';
/** docs/contract.md §8.6: the launcher's default ports (MariaDB, NATS, then the ones it binds itself). */
const DEFAULT_PORTS = [3306, 4222, 50051, 50052, 8080, 9100, 9101, 9102, 9103, 1025, 1080];
const BFF = 'http://127.0.0.1:8080';
const AUTH = `Basic ${Buffer.from('admin:admin').toString('base64')}`;
const UP_TIMEOUT_MS = 45_000;
const STOP_TIMEOUT_MS = 40_000;

function answers(port) {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port, timeout: 1000 });
    const done = (open) => {
      socket.destroy();
      resolve(open);
    };
    socket.once('connect', () => done(true));
    socket.once('timeout', () => done(false));
    socket.once('error', () => done(false));
  });
}

const within = (ms, promise, fallback) =>
  Promise.race([promise, new Promise((resolve) => setTimeout(() => resolve(fallback), ms).unref())]);

async function request(method, path, body) {
  const res = await fetch(`${BFF}${path}`, {
    method,
    headers: { authorization: AUTH, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: res.status, body: json };
}

async function quickStart() {
  const result = { netns: readlinkSync('/proc/self/ns/net') };
  // Its own process group, as a shell gives a foreground job: Ctrl-C signals that group.
  const child = spawn(process.execPath, [LAUNCHER], { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let output = '';
  child.stdout.on('data', (c) => (output += c.toString()));
  child.stderr.on('data', (c) => (output += c.toString()));
  const exited = new Promise((resolve) => child.once('close', (code, signal) => resolve({ code, signal })));

  let bannerSeen = false;
  const banner = new Promise((resolve) => {
    const timer = setInterval(() => {
      if (output.includes(BANNER_END)) {
        clearInterval(timer);
        bannerSeen = true;
        resolve(true);
      }
    }, 100);
    void exited.then(() => clearInterval(timer));
  });
  result.up = await within(UP_TIMEOUT_MS, Promise.race([banner, exited.then(() => bannerSeen)]), false);
  if (result.up) {
    try {
      result.listed = await request('GET', '/api/productos');
      result.created = await request('POST', '/api/productos', {
        nombre: 'Tornillo del inicio rápido',
        precio: 0.25,
        cantidadEnStock: 10,
      });
      result.read =
        result.created.status === 201 ? await request('GET', `/api/productos/${result.created.body.id}`) : undefined;
    } catch (err) {
      result.requestError = String(err);
    }
  }

  result.interrupted = child.exitCode === null && child.signalCode === null;
  if (result.interrupted) process.kill(-child.pid, 'SIGINT');
  result.exit = await within(STOP_TIMEOUT_MS, exited, undefined);
  if (result.exit === undefined) process.kill(-child.pid, 'SIGKILL');
  result.output = output;
  return result;
}

async function main() {
  if (process.argv[2] === 'probe') {
    const taken = [];
    for (const port of DEFAULT_PORTS) if (await answers(port)) taken.push(port);
    return { taken };
  }
  return quickStart();
}

main().then(
  (result) => process.stdout.write(`${JSON.stringify(result)}\n`),
  (err) => {
    process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  },
);
