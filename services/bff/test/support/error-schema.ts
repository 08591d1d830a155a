/**
 * The OpenAPI document's error body (`#/components/schemas/Error`) as a
 * check: for a 4xx that an operation does not document itself (a 413 on a
 * GET, a 405), the body must still be the API's `{error, mensaje,
 * detalles?}`.
 */
import Ajv2020 from 'ajv/dist/2020';
import { openApiDocument } from '../../src/openapi/document';

const ajv = new Ajv2020({ allErrors: true, strict: false });
const validateError = ajv.compile({ ...openApiDocument.components?.schemas?.Error });

/** What is wrong with `body` as an API error body; [] when it is one. */
export function errorBodyProblems(body: unknown): string[] {
  if (validateError(body)) return [];
  return (validateError.errors ?? []).map((e) => `${e.instancePath || 'body'}: ${e.message ?? 'invalid'}`);
}
