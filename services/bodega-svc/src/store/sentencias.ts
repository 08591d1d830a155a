import type { Knex } from '@inventario/platform';
import type { SqlFija } from './sentencias-fijas';

/**
 * A statement of a write not sent yet (a hot one as its fixed text, sentencias-fijas.ts), and the check of what it
 * changed (rows; the first id an INSERT gave).
 */
export interface Sentencia {
  sentencia: Knex.QueryBuilder | SqlFija;
  comprobar?(filas: number, insertId: number): void;
}

/** The statement's SQL and bindings: a fixed text as it is, a query builder's as knex builds it. */
export function nativa(sentencia: Knex.QueryBuilder | SqlFija): SqlFija {
  if ('toSQL' in sentencia) {
    const { sql, bindings } = sentencia.toSQL().toNative();
    return { sql, bindings: bindings as Knex.RawBinding[] };
  }
  return sentencia;
}

/**
 * Sends `sentencias` in order, in one query when the pool takes several statements in one (`juntas`,
 * issue 23: each round trip of a write holds its locks longer), else one by one. The first that
 * fails stops the rest and fails the write, as one by one. Only for statements whose answer is the
 * rows they changed (INSERT, UPDATE, DELETE).
 */
export async function enviarJuntas(
  trx: Knex.Transaction,
  sentencias: readonly Sentencia[],
  juntas: boolean,
): Promise<void> {
  if (sentencias.length === 0) return;
  if (!juntas || sentencias.length === 1) {
    for (const s of sentencias) {
      const { sql, bindings } = nativa(s.sentencia);
      const [res] = (await trx.raw(sql, bindings)) as [Resultado];
      s.comprobar?.(res.affectedRows ?? 0, Number(res.insertId ?? 0));
    }
    return;
  }
  const partes = sentencias.map((s) => nativa(s.sentencia));
  const [resultados] = (await trx.raw(
    partes.map((p) => p.sql).join(';\n'),
    partes.flatMap((p) => p.bindings),
  )) as [Resultado[]];
  sentencias.forEach((s, i) => s.comprobar?.(resultados[i]?.affectedRows ?? 0, Number(resultados[i]?.insertId ?? 0)));
}

/** A fixed read's rows. */
export async function filasDe<T>(trx: Knex.Transaction, { sql, bindings }: SqlFija): Promise<T[]> {
  const [filas] = (await trx.raw(sql, bindings)) as [T[]];
  return filas;
}

/** A fixed INSERT's id (of its first row). */
export async function idInsertado(trx: Knex.Transaction, { sql, bindings }: SqlFija): Promise<number> {
  const [res] = (await trx.raw(sql, bindings)) as [Resultado];
  return Number(res.insertId);
}

interface Resultado {
  affectedRows?: number;
  insertId?: number | string;
}
