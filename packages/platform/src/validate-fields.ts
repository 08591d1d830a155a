import { InvalidArgumentError, type FieldViolation } from './errors';

/**
 * Runs every check and returns their results under the same keys; when any
 * throws InvalidArgumentError, throws one InvalidArgumentError with the
 * violations of all of them, so a request with several bad fields names
 * every one at once. Any other error propagates as is.
 */
export function validateFields<T extends Record<string, () => unknown>>(checks: T): { [K in keyof T]: ReturnType<T[K]> } {
  const results: Record<string, unknown> = {};
  const violations: FieldViolation[] = [];
  for (const [key, check] of Object.entries(checks)) {
    try {
      results[key] = check();
    } catch (err) {
      if (!(err instanceof InvalidArgumentError)) throw err;
      violations.push(...err.violations);
    }
  }
  if (violations.length > 0) throw new InvalidArgumentError(violations);
  // Every key was filled by its own check.
  return results as { [K in keyof T]: ReturnType<T[K]> };
}
