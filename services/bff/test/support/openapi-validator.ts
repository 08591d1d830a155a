/**
 * Checks real HTTP responses against the BFF's OpenAPI document, so the
 * document cannot drift from the routes: an undocumented route, an
 * undocumented status for a route, a missing documented header, a content
 * type the route does not document, a body that does not match its schema,
 * or a body where none is documented (204) are all reported.
 *
 * Schemas are checked with ajv's JSON Schema 2020-12 validator (the dialect
 * of OpenAPI 3.1) plus ajv-formats. The whole document is registered as one
 * schema resource, so `#/components/...` references resolve exactly as they
 * do for any other reader of the document.
 */
import { spawn } from 'node:child_process';
import { dirname } from 'node:path';
import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { openApiDocument } from '../../src/openapi/document';
import type {
  HeaderObject as Header,
  SchemaObject as JsonSchema,
  MediaTypeObject as MediaType,
  OpenAPIObject as OpenApiDocument,
  OperationObject as Operation,
  ParameterObject as Parameter,
  PathItemObject as PathItem,
  ReferenceObject as Reference,
  RequestBodyObject as RequestBody,
  ResponseObject as Response,
} from 'openapi3-ts/oas31';

/** One real response, as a test observed it. */
export interface ObservedResponse {
  method: string;
  /**
   * The concrete path that was requested (`/api/v1/bodegas/3?force=true`;
   * the query is ignored and the `/api/v1` alias is read as `/api`), or a
   * path template of the document (`/api/bodegas/{id}`).
   */
  path: string;
  status: number;
  headers: Headers | Readonly<Record<string, string>>;
  /** The parsed JSON body; undefined when the body is empty or not JSON. */
  body: unknown;
  /** The raw body. */
  text: string;
}

/** One method of one path of the document. */
export interface DocumentedOperation {
  /** Upper case, e.g. `GET`. */
  method: string;
  /** The path template, e.g. `/api/productos/{id}`. */
  path: string;
  operation: Operation;
  /** Documented status codes. */
  statuses: number[];
}

export interface OpenApiValidator {
  /** Every operation of the document. */
  operations(): DocumentedOperation[];
  /** The operation a request to `path` reaches, or undefined when the document has no such route. */
  findOperation(method: string, path: string): DocumentedOperation | undefined;
  /** What is wrong with this response according to the document; [] when it conforms. */
  responseProblems(response: ObservedResponse): string[];
  /** Throws, listing the problems, unless the response conforms; records a conforming one as exercised. */
  assertResponse(response: ObservedResponse): void;
  /** What is wrong with this JSON request body according to the operation's requestBody; [] when it conforms. */
  requestBodyProblems(method: string, path: string, body: unknown): string[];
  /** Statuses that assertResponse accepted so far, by `METHOD /template`. */
  exercised(): ReadonlyMap<string, ReadonlySet<number>>;
  /** Every example of the document checked against its schema; [] when all match. */
  exampleProblems(): string[];
}

/** The key of an operation in exercised(): `GET /api/productos/{id}`. */
export function operationKey(method: string, path: string): string {
  return `${method.toUpperCase()} ${path}`;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;
/** Base URI the document is registered under in ajv. */
const DOCUMENT_ID = 'https://inventario.test/openapi.json';
/** The document's top-level fields, which are not JSON Schema keywords. */
const OPENAPI_ROOT_FIELDS = [
  'openapi',
  'info',
  'jsonSchemaDialect',
  'servers',
  'tags',
  'security',
  'paths',
  'components',
  'webhooks',
  'externalDocs',
];

function isReference(value: object): value is Reference {
  return '$ref' in value && typeof value.$ref === 'string';
}

function pointerOf(segments: readonly string[]): string {
  return segments.map((s) => `/${encodeURIComponent(s.replace(/~/g, '~0').replace(/\//g, '~1'))}`).join('');
}

function formatAjvErrors(where: string, errors: ErrorObject[] | null | undefined): string[] {
  return (errors ?? []).map((e) => {
    const params = Object.keys(e.params).length > 0 ? ` ${JSON.stringify(e.params)}` : '';
    return `${where}${e.instancePath || ''}: ${e.message ?? 'invalid'}${params}`;
  });
}

/** `/api/v1/x/?y` -> `/api/x` (a trailing slash is ignored, docs/contract.md §2.1); a template is returned unchanged. */
function normalizePath(path: string): string {
  const bare = (path.split(/[?#]/, 1)[0] ?? path).replace(/(.)\/$/, '$1');
  return bare === '/api/v1' || bare.startsWith('/api/v1/') ? `/api${bare.slice('/api/v1'.length)}` : bare;
}

/**
 * The stated rule of every `precio` (its schema's description; JSON Schema has no exact keyword for it): at most two
 * decimals. A JSON number's shortest decimal form is the text the BFF wrote for the stored DECIMAL(10,2).
 */
function twoDecimalPriceProblems(where: string, body: unknown, at = ''): string[] {
  if (Array.isArray(body)) return body.flatMap((item, i) => twoDecimalPriceProblems(where, item, `${at}/${i}`));
  if (typeof body !== 'object' || body === null) return [];
  return Object.entries(body).flatMap(([key, value]) =>
    key === 'precio' && typeof value === 'number' && !/^-?\d+(\.\d{1,2})?$/.test(String(value))
      ? [`${where}${at}/precio: must have at most 2 decimals (${value})`]
      : twoDecimalPriceProblems(where, value, `${at}/${key}`),
  );
}

function headerValue(headers: ObservedResponse['headers'], name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers)) if (key.toLowerCase() === wanted) return value;
  return undefined;
}

/** A header's text as the JSON value its schema describes (`"30"` -> 30 for an integer). */
function headerAsJson(value: string, schema: JsonSchema): unknown {
  const types = schema.type === undefined ? [] : Array.isArray(schema.type) ? schema.type : [schema.type];
  if ((types.includes('integer') || types.includes('number')) && /^-?\d+(\.\d+)?$/.test(value)) return Number(value);
  return value;
}

export function createOpenApiValidator(document: OpenApiDocument = openApiDocument): OpenApiValidator {
  // ajv's defaults (strict included), plus every error at once and union types. No multipleOfPrecision: the document
  // declares no multipleOf, so a client's validator with its defaults judges as this one; the two decimals of a price
  // are a stated rule, checked below (twoDecimalPriceProblems).
  const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
  addFormats(ajv);
  ajv.addVocabulary(OPENAPI_ROOT_FIELDS);
  ajv.addSchema(document, DOCUMENT_ID);

  const compiled = new Map<string, ValidateFunction>();
  /** The validator of the schema at `segments` in the document. */
  function validatorAt(segments: readonly string[]): ValidateFunction {
    const ref = `${DOCUMENT_ID}#${pointerOf(segments)}`;
    let validate = compiled.get(ref);
    if (!validate) {
      validate = ajv.compile({ $ref: ref });
      compiled.set(ref, validate);
    }
    return validate;
  }

  /** Follows a local `$ref` (`#/components/responses/NotFound`) to its target and location. */
  function resolve<T extends object>(value: T | Reference, at: string[]): { value: T; at: string[] } {
    if (!isReference(value)) return { value, at };
    if (!value.$ref.startsWith('#/')) throw new Error(`only local references are supported: ${value.$ref}`);
    const segments = value.$ref
      .slice(2)
      .split('/')
      .map((s) => decodeURIComponent(s).replace(/~1/g, '/').replace(/~0/g, '~'));
    let target: unknown = document;
    for (const segment of segments) target = (target as Record<string, unknown> | undefined)?.[segment];
    if (typeof target !== 'object' || target === null) throw new Error(`unresolved reference ${value.$ref}`);
    return resolve(target as T | Reference, segments);
  }

  const paths: Record<string, PathItem> = document.paths ?? {};
  const operations: DocumentedOperation[] = [];
  for (const [path, item] of Object.entries(paths)) {
    for (const method of METHODS) {
      const operation = item[method];
      if (operation)
        operations.push({
          method: method.toUpperCase(),
          path,
          operation,
          statuses: Object.keys(operation.responses ?? {}).map(Number),
        });
    }
  }
  // Literal paths before templated ones, as OpenAPI requires (`/api/docs/` before a hypothetical `/api/{x}/`).
  const matchers = Object.keys(paths)
    .map((template) => ({
      template,
      params: (template.match(/\{[^}]+\}/g) ?? []).length,
      regex: new RegExp(
        `^${template
          .split(/\{[^}]+\}/)
          .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
          .join('[^/]+')}$`,
      ),
    }))
    .sort((a, b) => a.params - b.params);

  function findOperation(method: string, path: string): DocumentedOperation | undefined {
    const normalized = normalizePath(path);
    const template = normalized in paths ? normalized : matchers.find((m) => m.regex.test(normalized))?.template;
    return operations.find((o) => o.path === template && o.method === method.toUpperCase());
  }

  const exercised = new Map<string, Set<number>>();

  function responseProblems(response: ObservedResponse): string[] {
    const found = findOperation(response.method, response.path);
    const label = `${response.method.toUpperCase()} ${response.path} -> ${response.status}`;
    if (!found)
      return [
        `${label}: the document has no such route (${response.method.toUpperCase()} ${normalizePath(response.path)})`,
      ];
    const base = ['paths', found.path, found.method.toLowerCase(), 'responses', String(response.status)];
    const declared = found.operation.responses?.[String(response.status)] as Response | Reference | undefined;
    if (!declared) {
      const documentedStatuses = found.statuses.join(', ');
      return [
        `${label}: status ${response.status} is not documented for ${operationKey(found.method, found.path)} (documented: ${documentedStatuses})`,
      ];
    }
    const { value: documented, at } = resolve<Response>(declared, base);
    const problems: string[] = [];

    for (const [name, headerOrRef] of Object.entries(documented.headers ?? {})) {
      const { value: header, at: headerAt } = resolve<Header>(headerOrRef, [...at, 'headers', name]);
      const value = headerValue(response.headers, name);
      if (value === undefined) {
        if (header.required) problems.push(`${label}: documented header ${name} is missing`);
        continue;
      }
      const validate = validatorAt([...headerAt, 'schema']);
      if (!validate(headerAsJson(value, (header.schema ?? {}) as JsonSchema)))
        problems.push(...formatAjvErrors(`${label}: header ${name}`, validate.errors));
    }

    if (!documented.content) {
      if (response.text !== '') {
        problems.push(
          `${label}: the document says this response has no body, but it has ${JSON.stringify(response.text.slice(0, 200))}`,
        );
      }
      return problems;
    }
    const contentType = headerValue(response.headers, 'content-type')?.split(';', 1)[0]?.trim().toLowerCase();
    const media: MediaType | undefined = contentType === undefined ? undefined : documented.content[contentType];
    if (!contentType || !media) {
      const documentedTypes = Object.keys(documented.content).join(', ');
      problems.push(
        `${label}: content type ${contentType ?? '(none)'} is not documented (documented: ${documentedTypes})`,
      );
      return problems;
    }
    const isJson = contentType === 'application/json' || contentType.endsWith('+json');
    if (isJson && response.body === undefined) {
      problems.push(`${label}: the body is not JSON: ${JSON.stringify(response.text.slice(0, 200))}`);
      return problems;
    }
    const validate = validatorAt([...at, 'content', contentType, 'schema']);
    if (!validate(isJson ? response.body : response.text))
      problems.push(...formatAjvErrors(`${label}: body`, validate.errors));
    if (isJson) problems.push(...twoDecimalPriceProblems(`${label}: body`, response.body));
    return problems;
  }

  function requestBodyProblems(method: string, path: string, body: unknown): string[] {
    const found = findOperation(method, path);
    const label = `${method.toUpperCase()} ${path} request body`;
    if (!found) return [`${label}: the document has no such route`];
    if (!found.operation.requestBody) return [`${label}: the operation documents no request body`];
    const base = ['paths', found.path, found.method.toLowerCase(), 'requestBody'];
    const { value: requestBody, at } = resolve<RequestBody>(found.operation.requestBody, base);
    if (!requestBody.content['application/json']) return [`${label}: no application/json request body is documented`];
    const validate = validatorAt([...at, 'content', 'application/json', 'schema']);
    return validate(body) ? [] : formatAjvErrors(label, validate.errors);
  }

  function exampleProblems(): string[] {
    const problems: string[] = [];
    const check = (schemaAt: string[], value: unknown, where: string) => {
      const validate = validatorAt(schemaAt);
      if (!validate(value)) problems.push(...formatAjvErrors(`example ${where}`, validate.errors));
      problems.push(...twoDecimalPriceProblems(`example ${where}`, value));
    };
    /** A schema's own `examples`, then those of its subschemas. */
    const walkSchema = (schema: JsonSchema | Reference | undefined, at: string[]) => {
      if (!schema || isReference(schema)) return;
      (schema.examples ?? []).forEach((value, i) => check(at, value, `${pointerOf(at)}/examples/${i}`));
      for (const [name, sub] of Object.entries(schema.properties ?? {})) walkSchema(sub, [...at, 'properties', name]);
      for (const key of ['items', 'not', 'additionalProperties', 'unevaluatedProperties'] as const) {
        const sub: unknown = (schema as Record<string, unknown>)[key];
        if (typeof sub === 'object') walkSchema(sub as JsonSchema, [...at, key]);
      }
      for (const key of ['allOf', 'anyOf', 'oneOf'] as const)
        schema[key]?.forEach((sub, i) => walkSchema(sub, [...at, key, String(i)]));
    };
    /** Examples of a media type / parameter against its schema. */
    const withExamples = (holder: MediaType | Parameter, at: string[]) => {
      walkSchema(holder.schema, [...at, 'schema']);
      for (const [name, exampleOrRef] of Object.entries(holder.examples ?? {})) {
        const { value: example } = resolve(exampleOrRef, [...at, 'examples', name]);
        check([...at, 'schema'], example.value, `${pointerOf(at)}/examples/${name}`);
      }
    };
    // Our components are never `$ref`s themselves.
    const components = (document.components ?? {}) as {
      schemas?: Record<string, JsonSchema>;
      parameters?: Record<string, Parameter>;
      headers?: Record<string, Header>;
      responses?: Record<string, Response>;
    };
    for (const [name, schema] of Object.entries(components.schemas ?? {}))
      walkSchema(schema, ['components', 'schemas', name]);
    for (const [name, parameter] of Object.entries(components.parameters ?? {}))
      withExamples(parameter, ['components', 'parameters', name]);
    for (const [name, header] of Object.entries(components.headers ?? {}))
      walkSchema(header.schema, ['components', 'headers', name, 'schema']);
    for (const [name, response] of Object.entries(components.responses ?? {})) {
      for (const [type, media] of Object.entries(response.content ?? {}))
        withExamples(media, ['components', 'responses', name, 'content', type]);
    }
    for (const { method, path, operation } of operations) {
      const at = ['paths', path, method.toLowerCase()];
      operation.parameters?.forEach((p, i) => {
        if (!isReference(p)) withExamples(p, [...at, 'parameters', String(i)]);
      });
      if (operation.requestBody && !isReference(operation.requestBody)) {
        for (const [type, media] of Object.entries(operation.requestBody.content))
          withExamples(media, [...at, 'requestBody', 'content', type]);
      }
      for (const [status, response] of Object.entries<Response | Reference>(operation.responses ?? {})) {
        if (isReference(response)) continue;
        for (const [type, media] of Object.entries(response.content ?? {}))
          withExamples(media, [...at, 'responses', status, 'content', type]);
      }
    }
    return problems;
  }

  return {
    operations: () => operations,
    findOperation,
    responseProblems,
    assertResponse(response) {
      const problems = responseProblems(response);
      if (problems.length > 0)
        throw new Error(`response does not match the OpenAPI document:\n  ${problems.join('\n  ')}`);
      const found = findOperation(response.method, response.path)!;
      const key = operationKey(found.method, found.path);
      const statuses = exercised.get(key) ?? new Set<number>();
      statuses.add(response.status);
      exercised.set(key, statuses);
    },
    requestBodyProblems,
    exercised: () => exercised,
    exampleProblems,
  };
}

/** What @seriousme/openapi-schema-validator says about a document. */
export interface DocumentValidation {
  valid: boolean;
  errors?: unknown;
}

/**
 * Validates a whole document against the official OpenAPI 3.1 schema with
 * @seriousme/openapi-schema-validator. That package is ESM-only and jest runs
 * our tests as CommonJS (no `--experimental-vm-modules`), so it runs in a
 * plain Node child process that reads the document on stdin.
 */
export function validateOpenApiDocument(document: unknown): Promise<DocumentValidation> {
  const script = `
    import { Validator } from '@seriousme/openapi-schema-validator';
    let input = '';
    for await (const chunk of process.stdin) input += chunk;
    const result = await new Validator().validate(JSON.parse(input));
    process.stdout.write(JSON.stringify(result));
  `;
  return new Promise((resolvePromise, reject) => {
    // cwd: this package, so the child resolves the package from its node_modules.
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      cwd: dirname(require.resolve('../../package.json')),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => {
      if (code !== 0) {
        reject(new Error(`openapi-schema-validator exited with ${code}: ${stderr}`));
        return;
      }
      try {
        resolvePromise(JSON.parse(stdout) as DocumentValidation);
      } catch (err) {
        reject(err instanceof Error ? err : new Error(String(err)));
      }
    });
    child.stdin.end(JSON.stringify(document));
  });
}
