#!/usr/bin/env node
// Writes gen/descriptor-set.binpb: every inventario.v1 file plus
// grpc.health.v1 (from grpc-health-check), as compiled by buf. Servers hand
// it to gRPC reflection, so grpcurl can call our services and the health
// service without proto files. Two serialized FileDescriptorSets
// concatenated are one valid set (repeated field `file`).
const { execFileSync } = require('node:child_process');
const { mkdtempSync, readFileSync, rmSync, writeFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const path = require('node:path');

const buf = require.resolve('@bufbuild/buf/bin/buf');
const healthProtoRoot = path.join(path.dirname(require.resolve('grpc-health-check/package.json')), 'proto');
const tmp = mkdtempSync(path.join(tmpdir(), 'inventario-descriptors-'));
try {
  const ours = path.join(tmp, 'inventario.binpb');
  const health = path.join(tmp, 'health.binpb');
  execFileSync(process.execPath, [buf, 'build', __dirname, '-o', ours], { stdio: 'inherit' });
  execFileSync(process.execPath, [buf, 'build', healthProtoRoot, '-o', health], { stdio: 'inherit' });
  writeFileSync(
    path.join(__dirname, 'gen', 'descriptor-set.binpb'),
    Buffer.concat([readFileSync(ours), readFileSync(health)]),
  );
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
