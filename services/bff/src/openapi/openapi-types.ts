/**
 * The part of OpenAPI 3.1 (and of JSON Schema 2020-12, its schema dialect)
 * that the BFF's document uses, typed so that a misspelt keyword is a compile
 * error rather than a silently ignored property. Deliberately partial: add a
 * keyword when the document needs it. See https://spec.openapis.org/oas/v3.1.1.
 */

/** `{"$ref": "#/components/..."}`, optionally with the summary/description overrides 3.1 allows. */
export interface Reference {
  $ref: string;
  summary?: string;
  description?: string;
}

export type JsonType = 'string' | 'number' | 'integer' | 'boolean' | 'object' | 'array' | 'null';

/** A JSON Schema 2020-12 schema (the OpenAPI 3.1 Schema Object without the deprecated `example`). */
export interface JsonSchema {
  $ref?: string;
  title?: string;
  description?: string;
  type?: JsonType | readonly JsonType[];
  enum?: readonly unknown[];
  const?: unknown;
  default?: unknown;
  examples?: readonly unknown[];
  readOnly?: boolean;
  writeOnly?: boolean;
  deprecated?: boolean;
  // strings, numbers
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  multipleOf?: number;
  // objects, arrays
  properties?: Readonly<Record<string, JsonSchema>>;
  required?: readonly string[];
  additionalProperties?: boolean | JsonSchema;
  unevaluatedProperties?: boolean | JsonSchema;
  propertyNames?: JsonSchema;
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  // composition
  allOf?: readonly JsonSchema[];
  anyOf?: readonly JsonSchema[];
  oneOf?: readonly JsonSchema[];
  not?: JsonSchema;
}

export interface Example {
  summary?: string;
  description?: string;
  value: unknown;
}

type Examples = Readonly<Record<string, Example | Reference>>;

export interface MediaType {
  schema: JsonSchema;
  examples?: Examples;
}

export type Content = Readonly<Record<string, MediaType>>;

export interface Header {
  description?: string;
  required?: boolean;
  schema: JsonSchema;
}

export interface Response {
  description: string;
  headers?: Readonly<Record<string, Header | Reference>>;
  /** Absent for a response without a body (204). */
  content?: Content;
}

export interface Parameter extends Header {
  name: string;
  in: 'query' | 'header' | 'path' | 'cookie';
  examples?: Examples;
}

export interface RequestBody {
  description?: string;
  required?: boolean;
  content: Content;
}

/** Security requirement: scheme name -> scopes (always empty for HTTP Basic). */
export type SecurityRequirement = Readonly<Record<string, readonly string[]>>;

export interface Operation {
  operationId: string;
  summary: string;
  description?: string;
  tags?: readonly string[];
  parameters?: readonly (Parameter | Reference)[];
  requestBody?: RequestBody | Reference;
  /** Status code (as a string) -> response. */
  responses: Readonly<Record<string, Response | Reference>>;
  /** Overrides the document's security; `[]` means no authentication. */
  security?: readonly SecurityRequirement[];
}

export type PathItem = { summary?: string; description?: string; parameters?: readonly (Parameter | Reference)[] } & {
  [method in 'get' | 'put' | 'post' | 'delete' | 'patch']?: Operation;
};

interface Described {
  name: string;
  description?: string;
}

export interface OpenApiDocument {
  openapi: `3.1.${number}`;
  jsonSchemaDialect?: string;
  info: { title: string; version: string; summary?: string; description?: string; license?: { name: string; identifier?: string; url?: string } };
  servers?: readonly { url: string; description?: string }[];
  tags?: readonly Described[];
  security?: readonly SecurityRequirement[];
  paths: Readonly<Record<string, PathItem>>;
  components?: {
    schemas?: Readonly<Record<string, JsonSchema>>;
    responses?: Readonly<Record<string, Response>>;
    parameters?: Readonly<Record<string, Parameter>>;
    headers?: Readonly<Record<string, Header>>;
    requestBodies?: Readonly<Record<string, RequestBody>>;
    securitySchemes?: Readonly<Record<string, { type: 'http'; scheme: string; description?: string }>>;
  };
}
