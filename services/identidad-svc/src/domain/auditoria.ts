import { createHash } from 'node:crypto';

/**
 * The audit trail's hash chain (docs/decisions.md, "Audit chain"), free of
 * I/O: `hash = SHA-256(hash_anterior || canonical row)`, the first row's
 * `hash_anterior` 32 zero bytes. Any edit of a stored row changes its
 * recomputed hash; a deleted row breaks the next row's link; a deleted tail
 * leaves the chain shorter than the last anchor published outside the
 * database.
 */

/** What one row says, before it is chained. */
export interface Hecho {
  /** Unique: the event's id, so a redelivered event is written once. */
  eventoId: string;
  accion: string;
  recurso: string;
  principalId: number | null;
  usuario: string;
  metodoAuth: string;
  tokenId: number | null;
  requestId: string;
  direccion: string;
  /** Canonical JSON (keys sorted) of what happened: never a password, hash or secret. */
  datos: string;
  ocurridoEn: Date;
}

export interface Registro extends Hecho {
  seq: number;
  hashAnterior: Buffer;
  hash: Buffer;
}

export const GENESIS = Buffer.alloc(32);

/** JSON with object keys sorted at every depth: one text per value, whatever order it was built in. */
export function jsonCanonico(value: unknown): string {
  return JSON.stringify(ordenado(value));
}

function ordenado(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(ordenado);
  if (value !== null && typeof value === 'object' && !(value instanceof Date)) {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, ordenado((value as Record<string, unknown>)[key])]),
    );
  }
  return value;
}

/** The bytes a row's hash covers: every column but the hashes, in a fixed order. */
export function formaCanonica(seq: number, hecho: Hecho): Buffer {
  return Buffer.from(
    JSON.stringify([
      String(seq),
      hecho.eventoId,
      hecho.accion,
      hecho.recurso,
      hecho.principalId,
      hecho.usuario,
      hecho.metodoAuth,
      hecho.tokenId,
      hecho.requestId,
      hecho.direccion,
      hecho.datos,
      hecho.ocurridoEn.toISOString(),
    ]),
    'utf8',
  );
}

export function encadenar(seq: number, hashAnterior: Buffer, hecho: Hecho): Buffer {
  return createHash('sha256').update(hashAnterior).update(formaCanonica(seq, hecho)).digest();
}

/** Where a chain stops recomputing, if it does. */
export type Rotura = { seq: number; motivo: string } | undefined;

/**
 * Walks rows in seq order (in batches: `rows` continues after `previo`)
 * and returns the first row that does not recompute, and the chain state
 * to continue from.
 */
export function verificarTramo(
  previo: { seq: number; hash: Buffer },
  rows: readonly Registro[],
): { rotura: Rotura; ultimo: { seq: number; hash: Buffer } } {
  let ultimo = previo;
  for (const row of rows) {
    if (row.seq !== ultimo.seq + 1)
      return { rotura: { seq: row.seq, motivo: `falta la fila ${ultimo.seq + 1}` }, ultimo };
    if (!row.hashAnterior.equals(ultimo.hash))
      return { rotura: { seq: row.seq, motivo: 'no enlaza con el hash de la fila anterior' }, ultimo };
    if (!encadenar(row.seq, row.hashAnterior, row).equals(row.hash))
      return { rotura: { seq: row.seq, motivo: 'su contenido no corresponde a su hash' }, ultimo };
    ultimo = { seq: row.seq, hash: row.hash };
  }
  return { rotura: undefined, ultimo };
}
