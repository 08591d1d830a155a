import { parse as parseLossless } from 'lossless-json';
import { losslessReading, NOT_SURE } from '../http/lossless-reading';

/** A request body read for graphql-js (`value`) and as the client wrote it (`exact`, every number a LosslessNumber). */
export interface ExactJson {
  value: unknown;
  exact: unknown;
}

/**
 * Reads a body once when one reading is enough: JSON.parse's value is then also the exact one (no number in it,
 * nothing lossless-json would refuse). Otherwise lossless-json reads it too, as every body was read before
 * (issue 23). Throws whatever either reader throws on a text it refuses.
 */
export function parseExactJson(text: string): ExactJson {
  const value: unknown = JSON.parse(text);
  const alike = losslessReading(text, value, false);
  return { value, exact: alike === NOT_SURE ? parseLossless(text) : alike };
}
