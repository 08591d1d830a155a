import { aLista, type PermisoEfectivo, type Permisos } from '@inventario/contract';
import { timingSafeEqual } from 'node:crypto';
import {
  enqueueEvent,
  FailedPreconditionError,
  jsonResultCodec,
  NotFoundError,
  nowToSecond,
  withDbErrors,
  writeTransaction,
  type Knex,
  type ResultCodec,
} from '@inventario/platform';
import { hashDeSecreto, nuevoSecreto, textoDeToken, type Token } from '../domain/token';
import { hechoDeEvento, type SobreEvento } from '../events/hecho';
import type { IdentidadEvents, WriteContext } from '../events/identidad-events';
import type { Escritura } from './usuario-store';
import { anexar } from './auditoria-store';

/** Why a token id was retired (`tokens_retirados.motivo`): revoked, or deleted with its owner. */
export type MotivoRetiro = 'REVOCADO' | 'USUARIO_ELIMINADO';

/**
 * API tokens (docs/contract.md §12.3). The secret exists in memory only
 * while the creating call answers: the row keeps its SHA-256, the
 * idempotency record keeps the answer without it (a replay shows the token,
 * not the secret), events and audit rows never see it.
 */

interface TokenRow {
  id: number;
  usuario_id: number;
  nombre: string;
  hash_secreto: Buffer;
  alcance: string | null;
  expira_en: Date;
  fecha_creacion: Date;
  revocado_en: Date | null;
  ultimo_uso: Date | null;
}

function toToken(row: TokenRow): Token {
  return {
    id: row.id,
    usuarioId: row.usuario_id,
    nombre: row.nombre,
    expiraEn: row.expira_en,
    alcance: row.alcance === null ? null : (JSON.parse(row.alcance) as PermisoEfectivo[]),
    fechaCreacion: row.fecha_creacion,
    revocadoEn: row.revocado_en,
    ultimoUso: row.ultimo_uso,
  };
}

export interface TokenCreado {
  token: Token;
  /** `inv_<id>_<secret>`; empty in a replay. */
  secreto: string;
}

export interface TokenStore {
  crear(
    datos: { usuarioId: number; nombre: string; expiraEn: Date; alcance: Permisos | null },
    w: Escritura,
  ): Promise<TokenCreado>;
  /** With the secret's hash, for Autenticar; undefined when no such token. */
  paraAutenticar(id: number): Promise<{ token: Token; hash: Buffer } | undefined>;
  obtener(id: number): Promise<Token>;
  listar(usuarioId: number, afterId: number | null, pageSize: number): Promise<{ tokens: Token[]; hasMore: boolean }>;
  /** Idempotent: revoking a revoked token answers it as it is, with no new event. */
  revocar(id: number, w: Escritura, autorizar: (token: Token) => void): Promise<Token>;
  /** Records a use, at most once a minute per token whatever the replicas (a conditional UPDATE). */
  marcarUso(id: number): Promise<void>;
  /**
   * A token the deployment declares (TOKENS_DE_SERVICIO): created with its id when missing, its expiry renewed when
   * it is there, never revived when revoked or retired (its row gone with its owner); refused when the id holds another
   * user's token or another secret.
   */
  asegurarDeclarado(declarado: TokenDeclarado, w: Escritura): Promise<'creado' | 'renovado' | 'revocado' | 'retirado'>;
  /** Why the id was retired (revoked, or deleted with its owner; the record outlives both); undefined if it was not. */
  retiro(id: number): Promise<MotivoRetiro | undefined>;
  /**
   * Moves the id counter past every retired id when it fell back (a restore into a freshly migrated schema, an
   * `ALTER TABLE ... AUTO_INCREMENT`), so a token made through the API never takes one; the counter it set, if any.
   */
  apartarIdsRetirados(): Promise<number | undefined>;
}

export interface TokenDeclarado {
  id: number;
  secreto: string;
  usuarioId: number;
  nombre: string;
  expiraEn: Date;
}

/** The stored answer of CreateToken leaves the secret out: a replay never shows it again. */
const CREADO_SIN_SECRETO: ResultCodec = (() => {
  const json = jsonResultCodec(['expiraEn', 'fechaCreacion', 'revocadoEn', 'ultimoUso']);
  return {
    encode: (value) => json.encode({ ...(value as TokenCreado), secreto: '' }),
    decode: (bytes) => json.decode(bytes),
  };
})();
const TOKEN = jsonResultCodec(['expiraEn', 'fechaCreacion', 'revocadoEn', 'ultimoUso']);

export interface TokenStoreDeps {
  events: IdentidadEvents;
  onCommitted?: () => void;
  idempotencyTtlSeconds: number;
}

const ctxOf = (w: Escritura, at: Date): WriteContext => ({
  autor: w.autor,
  at,
  traceparent: w.caller.traceparent,
  tracestate: w.caller.tracestate,
});

async function publicar(trx: Knex.Transaction, event: ReturnType<IdentidadEvents['token']>): Promise<void> {
  await enqueueEvent(trx, event);
  await anexar(trx, hechoDeEvento(event.envelope as unknown as SobreEvento));
}

function crear(
  db: Knex,
  deps: TokenStoreDeps,
  {
    datos,
    w,
  }: { datos: { usuarioId: number; nombre: string; expiraEn: Date; alcance: Permisos | null }; w: Escritura },
): Promise<TokenCreado> {
  return writeTransaction(
    db,
    async (trx) => {
      const at = nowToSecond();
      const secreto = nuevoSecreto();
      const alcance = datos.alcance === null ? null : aLista(datos.alcance);
      const [insertId] = await trx('tokens').insert({
        usuario_id: datos.usuarioId,
        nombre: datos.nombre,
        hash_secreto: hashDeSecreto(secreto),
        alcance: alcance === null ? null : JSON.stringify(alcance),
        expira_en: datos.expiraEn,
        fecha_creacion: at,
      });
      // The counter set back below a retired id while serving (the start moves it past them): refuse, not reuse.
      if (await trx('tokens_retirados').where({ token_id: insertId }).first()) {
        throw new Error(`token id counter at retired id ${insertId}: restart identidad-svc to move it past them`);
      }
      const token: Token = {
        id: Number(insertId),
        usuarioId: datos.usuarioId,
        nombre: datos.nombre,
        expiraEn: datos.expiraEn,
        alcance,
        fechaCreacion: at,
        revocadoEn: null,
        ultimoUso: null,
      };
      await publicar(trx, deps.events.token('TokenCreado', token, ctxOf(w, at)));
      return { token, secreto: textoDeToken(token.id, secreto) };
    },
    {
      onCommitted: deps.onCommitted,
      idempotency: { key: w.caller.idempotency, codec: CREADO_SIN_SECRETO, ttlSeconds: deps.idempotencyTtlSeconds },
      signal: w.caller.signal,
    },
  );
}

async function paraAutenticar(db: Knex, id: number): Promise<{ token: Token; hash: Buffer } | undefined> {
  const row = await withDbErrors(() => db<TokenRow>('tokens').where({ id }).first());
  return row ? { token: toToken(row), hash: Buffer.from(row.hash_secreto) } : undefined;
}

async function obtener(db: Knex, id: number): Promise<Token> {
  const row = await withDbErrors(() => db<TokenRow>('tokens').where({ id }).first());
  if (!row) throw new NotFoundError(`No existe el token con id ${id}`);
  return toToken(row);
}

async function listar(
  db: Knex,
  { usuarioId, afterId, pageSize }: { usuarioId: number; afterId: number | null; pageSize: number },
): Promise<{ tokens: Token[]; hasMore: boolean }> {
  const rows = await withDbErrors(() => {
    const q = db<TokenRow>('tokens')
      .where({ usuario_id: usuarioId })
      .orderBy('id')
      .limit(pageSize + 1);
    if (afterId !== null) q.where('id', '>', afterId);
    return q;
  });
  return { tokens: rows.slice(0, pageSize).map(toToken), hasMore: rows.length > pageSize };
}

function revocar(
  db: Knex,
  deps: TokenStoreDeps,
  { id, w, autorizar }: { id: number; w: Escritura; autorizar: (token: Token) => void },
): Promise<Token> {
  return writeTransaction(
    db,
    async (trx) => {
      const row = await trx<TokenRow>('tokens').where({ id }).forUpdate().first();
      if (!row) throw new NotFoundError(`No existe el token con id ${id}`);
      const token = toToken(row);
      autorizar(token);
      if (token.revocadoEn !== null) return token;
      const at = nowToSecond();
      await trx('tokens').where({ id }).update({ revocado_en: at, revocado_por: w.autor.principalId });
      const revocado = { ...token, revocadoEn: at };
      await publicar(trx, deps.events.token('TokenRevocado', revocado, ctxOf(w, at)));
      return revocado;
    },
    {
      onCommitted: deps.onCommitted,
      idempotency: { key: w.caller.idempotency, codec: TOKEN, ttlSeconds: deps.idempotencyTtlSeconds },
      signal: w.caller.signal,
    },
  );
}

function asegurarDeclarado(
  db: Knex,
  deps: TokenStoreDeps,
  { declarado, w }: { declarado: TokenDeclarado; w: Escritura },
): Promise<'creado' | 'renovado' | 'revocado' | 'retirado'> {
  return writeTransaction(
    db,
    async (trx) => {
      const row = await trx<TokenRow>('tokens').where({ id: declarado.id }).forUpdate().first();
      const hash = hashDeSecreto(declarado.secreto);
      if (row && (row.usuario_id !== declarado.usuarioId || !timingSafeEqual(Buffer.from(row.hash_secreto), hash))) {
        throw new FailedPreconditionError(
          `el token ${declarado.id} ya existe con otro dueño u otro secreto: declare otro id para rotarlo`,
        );
      }
      if (row?.revocado_en) return 'revocado' as const;
      if (row) {
        await trx('tokens').where({ id: declarado.id }).update({ expira_en: declarado.expiraEn });
        return 'renovado' as const;
      }
      // Retired since the caller looked (its owner deleted meanwhile): the declared secret never comes back.
      if (await trx('tokens_retirados').where({ token_id: declarado.id }).forShare().first()) {
        return 'retirado' as const;
      }
      const at = nowToSecond();
      await trx('tokens').insert({
        id: declarado.id,
        usuario_id: declarado.usuarioId,
        nombre: declarado.nombre,
        hash_secreto: hash,
        alcance: null,
        expira_en: declarado.expiraEn,
        fecha_creacion: at,
      });
      const token: Token = {
        id: declarado.id,
        usuarioId: declarado.usuarioId,
        nombre: declarado.nombre,
        expiraEn: declarado.expiraEn,
        alcance: null,
        fechaCreacion: at,
        revocadoEn: null,
        ultimoUso: null,
      };
      await publicar(trx, deps.events.token('TokenCreado', token, ctxOf(w, at)));
      return 'creado' as const;
    },
    { onCommitted: deps.onCommitted },
  );
}

async function retiro(db: Knex, id: number): Promise<MotivoRetiro | undefined> {
  const row = await withDbErrors(() =>
    db<{ token_id: number; motivo: MotivoRetiro }>('tokens_retirados').where({ token_id: id }).first('motivo'),
  );
  return row?.motivo;
}

async function apartarIdsRetirados(db: Knex): Promise<number | undefined> {
  return withDbErrors(async () => {
    const [[estado]] = (await db.raw(
      `SELECT t.AUTO_INCREMENT AS siguiente, (SELECT MAX(token_id) FROM tokens_retirados) AS retirado
         FROM information_schema.TABLES t WHERE t.TABLE_SCHEMA = DATABASE() AND t.TABLE_NAME = 'tokens'`,
    )) as [{ siguiente: number | string | null; retirado: number | null }[]];
    if (!estado || estado.retirado === null || Number(estado.siguiente) > estado.retirado) return undefined;
    // Only ever raised: InnoDB keeps it at or above the highest row's id plus one.
    await db.raw('ALTER TABLE tokens AUTO_INCREMENT = ?', [estado.retirado + 1]);
    return estado.retirado + 1;
  });
}

async function marcarUso(db: Knex, id: number): Promise<void> {
  await withDbErrors(() =>
    db.raw(
      'UPDATE tokens SET ultimo_uso = CURRENT_TIMESTAMP WHERE id = ? AND (ultimo_uso IS NULL OR ultimo_uso <= ' +
        'CURRENT_TIMESTAMP - INTERVAL 60 SECOND)',
      [id],
    ),
  );
}

export function createTokenStore(db: Knex, deps: TokenStoreDeps): TokenStore {
  return {
    crear: (datos, w) => crear(db, deps, { datos, w }),
    paraAutenticar: (id) => paraAutenticar(db, id),
    obtener: (id) => obtener(db, id),
    listar: (usuarioId, afterId, pageSize) => listar(db, { usuarioId, afterId, pageSize }),
    revocar: (id, w, autorizar) => revocar(db, deps, { id, w, autorizar }),
    asegurarDeclarado: (declarado, w) => asegurarDeclarado(db, deps, { declarado, w }),
    retiro: (id) => retiro(db, id),
    apartarIdsRetirados: () => apartarIdsRetirados(db),
    marcarUso: (id) => marcarUso(db, id),
  };
}
