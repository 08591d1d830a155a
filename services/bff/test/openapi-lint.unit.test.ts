/**
 * The OpenAPI document passes linters nobody here wrote: `redocly lint`
 * (@redocly/cli, the recommended ruleset of the repository's redocly.yaml,
 * no rule disabled) with zero errors and zero warnings, and a standard JSON
 * Schema validator (ajv with its default options) compiles every schema and
 * accepts every valid price, where `multipleOf: 0.01` made it refuse 19.9.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import { openApiDocument } from '../src/openapi/document';

const ROOT = join(__dirname, '..', '..', '..');
const REDOCLY = join(ROOT, 'node_modules', '@redocly', 'cli', 'bin', 'cli.js');

interface LintReport {
  totals: { errors: number; warnings: number; ignored: number };
  problems: { ruleId: string; severity: string; message: string; location: { pointer?: string }[] }[];
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'openapi-lint-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `redocly lint` of `document` with the repository's configuration, offline and without telemetry. */
function lint(document: unknown, name: string): LintReport {
  const file = join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify(document));
  const run = spawnSync(
    process.execPath,
    [REDOCLY, 'lint', file, '--config', join(ROOT, 'redocly.yaml'), '--format', 'json'],
    {
      cwd: dir,
      encoding: 'utf8',
      env: {
        PATH: process.env.PATH,
        HOME: dir,
        REDOCLY_TELEMETRY: 'off',
        REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
        NO_COLOR: '1',
      },
      timeout: 60_000,
    },
  );
  const json = run.stdout.slice(run.stdout.indexOf('{'));
  if (!json.startsWith('{'))
    throw new Error(`redocly lint printed no report (exit ${run.status}): ${run.stderr.slice(-2000)}`);
  return JSON.parse(json) as LintReport;
}

describe('redocly lint (recommended ruleset)', () => {
  it('finds no error and no warning in the document the BFF serves', () => {
    const report = lint(openApiDocument, 'openapi');
    expect(
      report.problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer ?? '?'}`),
    ).toEqual([]);
    expect(report.totals).toEqual({ errors: 0, warnings: 0, ignored: 0 });
  });

  it('does report what it should (the check can fail): a trailing slash, an example that breaks its schema, an operation without 4xx', () => {
    const broken = structuredClone(openApiDocument) as unknown as {
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
      components: { schemas: Record<string, { examples?: unknown[] }> };
    };
    broken.paths['/api/productos/'] = broken.paths['/api/productos']!;
    broken.components.schemas['Producto']!.examples = [{ id: 'doce' }];
    broken.paths['/actuator/health/liveness']!['get']!.responses = { 200: { description: 'UP' } };
    const rules = new Set(lint(broken, 'broken').problems.map((p) => p.ruleId));
    expect([...rules].sort()).toEqual(
      expect.arrayContaining(['no-invalid-schema-examples', 'no-path-trailing-slash', 'operation-4xx-response']),
    );
  });
});

describe('a standard JSON Schema validator (ajv 2020, default options)', () => {
  const ajv = new Ajv2020();
  // As a client would load them: components.schemas as the $defs of one schema, their $refs pointing there.
  const schemas = JSON.parse(
    JSON.stringify(openApiDocument.components.schemas).replaceAll('#/components/schemas/', '#/$defs/'),
  ) as Record<string, object>;
  ajv.addSchema({ $id: 'https://inventario.local/schemas', $defs: schemas });
  const validator = (name: string) => ajv.getSchema(`https://inventario.local/schemas#/$defs/${name}`)!;

  it('compiles every schema of the document', () => {
    for (const name of Object.keys(schemas)) expect([name, typeof validator(name)]).toEqual([name, 'function']);
  });

  const precios = [0, 0.01, 0.07, 0.1, 1.15, 19.9, 19.99, 1000, 12345678.91, 99999999.99];
  it.each(precios)('accepts the valid price %p in every schema that holds a precio', (precio) => {
    const producto = { id: 1, nombre: 'x', descripcion: null, precio, cantidadEnStock: 1, bodegaId: null, version: 1 };
    const fechas = { fechaCreacion: '2026-11-22T14:03:07', fechaActualizacion: '2026-11-22T14:03:07' };
    expect(validator('Producto')({ ...producto, ...fechas })).toBe(true);
    expect(validator('ProductoCreate')({ nombre: 'x', precio, cantidadEnStock: 1 })).toBe(true);
    expect(validator('ProductoUpdate')({ precio })).toBe(true);
    expect(validator('ProductoDeBodega')({ id: 1, nombre: 'x', cantidad: 1, precio })).toBe(true);
  });

  it('still refuses what the schema can state: a negative price, one past DECIMAL(10,2), a price as text, an empty update', () => {
    for (const precio of [-0.01, 100000000, '19.90'])
      expect([precio, validator('ProductoUpdate')({ precio })]).toEqual([precio, false]);
    expect(validator('ProductoUpdate')({})).toBe(false);
    expect(validator('BodegaUpdate')({})).toBe(false);
  });
});
