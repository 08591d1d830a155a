import { InvalidArgumentError } from '../errors';

export interface UpdateMaskSpec<F extends string> {
  /** snake_case proto path (AIP-161) to the public field. */
  updatable: Readonly<Record<string, F>>;
  /** Ignored in a mask (AIP-134). */
  outputOnly: readonly string[];
}

/**
 * proto3 JSON clients (grpcurl, buf curl) write camelCase paths and their FieldMask conversion sends snake_case; a
 * binary client may send either.
 */
function toSnakeCase(path: string): string {
  return path.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

/**
 * An unknown path, or nothing left to update, is InvalidArgumentError: never a silent no-op. (Messages avoid ';', which
 * joins violations.)
 */
export function parseUpdateMask<F extends string>(
  paths: readonly string[] | undefined,
  spec: UpdateMaskSpec<F>,
): Set<F> {
  const admitidas = `(admitidas: ${Object.keys(spec.updatable).join(', ')})`;
  const fields = new Set<F>();
  const unknown: string[] = [];
  for (const path of paths ?? []) {
    const snake = toSnakeCase(path);
    if (spec.outputOnly.includes(snake)) continue;
    const field = Object.hasOwn(spec.updatable, snake) ? spec.updatable[snake] : undefined;
    if (field === undefined) unknown.push(path);
    else fields.add(field);
  }
  if (unknown.length > 0) {
    throw InvalidArgumentError.field('updateMask', `rutas desconocidas: ${unknown.join(', ')} ${admitidas}`);
  }
  if (fields.size === 0) throw InvalidArgumentError.field('updateMask', `no hay campos para actualizar ${admitidas}`);
  return fields;
}
