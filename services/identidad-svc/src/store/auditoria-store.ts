import { enqueueEvent, withDbErrors, writeTransaction, type Knex, type OutboxEvent } from '@inventario/platform';
import {
  encadenar,
  GENESIS,
  jsonCanonico,
  verificarTramo,
  type Hecho,
  type Registro,
  type Rotura,
} from '../domain/auditoria';

/**
 * The audit trail's SQL (docs/contract.md §12.5). Appends lock the chain
 * head row, so rows are chained one at a time whoever writes them (the
 * stream consumer, identidad-svc's own actions, the failed-login windows,
 * on any replica), and check the event id under that lock: a redelivered
 * event is never written twice.
 */

interface RegistroRow {
  seq: number | string;
  evento_id: string;
  accion: string;
  recurso: string;
  principal_id: number | null;
  usuario: string;
  metodo_auth: string;
  token_id: number | null;
  request_id: string;
  direccion: string;
  datos: string;
  ocurrido_en: Date;
  hash_anterior: Buffer;
  hash: Buffer;
}

function toRegistro(row: RegistroRow): Registro {
  return {
    seq: Number(row.seq),
    eventoId: row.evento_id,
    accion: row.accion,
    recurso: row.recurso,
    principalId: row.principal_id,
    usuario: row.usuario,
    metodoAuth: row.metodo_auth,
    tokenId: row.token_id,
    requestId: row.request_id,
    direccion: row.direccion,
    datos: row.datos,
    ocurridoEn: row.ocurrido_en,
    hashAnterior: Buffer.from(row.hash_anterior),
    hash: Buffer.from(row.hash),
  };
}

/** Appends one row in the caller's transaction; false (nothing written) when its event id is already there. */
export async function anexar(trx: Knex.Transaction, hecho: Hecho): Promise<boolean> {
  const [escrito] = await anexarVarios(trx, [hecho]);
  return escrito!;
}

/** The columns an append writes, in the order of its INSERT's values. */
const COLUMNAS = [
  'seq',
  'evento_id',
  'accion',
  'recurso',
  'principal_id',
  'usuario',
  'metodo_auth',
  'token_id',
  'request_id',
  'direccion',
  'datos',
  'ocurrido_en',
  'hash_anterior',
  'hash',
] as const;
const VALORES_FILA = `(${COLUMNAS.map(() => '?').join(', ')})`;
const CABEZA_BLOQUEADA = 'SELECT seq, hash FROM auditoria_cabeza WHERE id = 1 FOR UPDATE';
const MOVER_CABEZA = 'UPDATE auditoria_cabeza SET seq = ?, hash = ? WHERE id = 1';

type Cabeza = { seq: number | string; hash: Buffer };

/** The head, locked, and which of `ids` are already written: one query when `juntas`, else two. */
async function leerCabeza(
  trx: Knex.Transaction,
  ids: readonly string[],
  juntas: boolean,
): Promise<{ cabeza: Cabeza | undefined; vistos: Set<string> }> {
  const existentes = `SELECT evento_id FROM auditoria WHERE evento_id IN (${ids.map(() => '?').join(', ')})`;
  let cabezas: Cabeza[];
  let filas: { evento_id: string }[];
  if (juntas) {
    [[cabezas, filas]] = (await trx.raw(`${CABEZA_BLOQUEADA};\n${existentes}`, [...ids])) as [
      [Cabeza[], { evento_id: string }[]],
    ];
  } else {
    [cabezas] = (await trx.raw(CABEZA_BLOQUEADA)) as [Cabeza[]];
    [filas] = (await trx.raw(existentes, [...ids])) as [{ evento_id: string }[]];
  }
  return { cabeza: cabezas[0], vistos: new Set(filas.map((e) => e.evento_id)) };
}

/**
 * Appends rows in order in the caller's transaction, chained one after the other under one lock of the head: four
 * statements whatever their number, sent as two queries when `juntas` (the pool takes several statements in one;
 * issue 23: a round trip is a socket write and a wake-up on each side). Each answer is false (nothing written) when
 * its event id was already there, or earlier in `hechos`.
 */
export async function anexarVarios(
  trx: Knex.Transaction,
  hechos: readonly Hecho[],
  juntas = false,
): Promise<boolean[]> {
  if (hechos.length === 0) return [];
  const { cabeza, vistos } = await leerCabeza(trx, [...new Set(hechos.map((h) => h.eventoId))], juntas);
  if (!cabeza) throw new Error('auditoria_cabeza has no row: migrations not applied');
  let seq = Number(cabeza.seq);
  let hashAnterior: Buffer = Buffer.from(cabeza.hash);
  const valores: unknown[] = [];
  let filas = 0;
  const escritos = hechos.map((hecho) => {
    if (vistos.has(hecho.eventoId)) return false;
    vistos.add(hecho.eventoId);
    seq += 1;
    // The stored instant is what the hash covers: whole milliseconds, as DATETIME(3) keeps them.
    const row: Hecho = { ...hecho, ocurridoEn: new Date(Math.floor(hecho.ocurridoEn.getTime())) };
    const hash = encadenar(seq, hashAnterior, row);
    valores.push(
      seq,
      row.eventoId,
      row.accion,
      row.recurso,
      row.principalId,
      row.usuario,
      row.metodoAuth,
      row.tokenId,
      row.requestId,
      row.direccion,
      row.datos,
      row.ocurridoEn,
      hashAnterior,
      hash,
    );
    filas++;
    hashAnterior = hash;
    return true;
  });
  if (filas === 0) return escritos;
  const filasSql = Array(filas).fill(VALORES_FILA).join(', ');
  const insertar = `INSERT INTO auditoria (${COLUMNAS.join(', ')}) VALUES ${filasSql}`;
  if (juntas) {
    await trx.raw(`${insertar};\n${MOVER_CABEZA}`, [...valores, seq, hashAnterior] as Knex.RawBinding[]);
  } else {
    await trx.raw(insertar, valores as Knex.RawBinding[]);
    await trx.raw(MOVER_CABEZA, [seq, hashAnterior]);
  }
  return escritos;
}

export interface AuditoriaFiltro {
  principalId?: number;
  accion?: string;
  desde?: Date;
  hasta?: Date;
  /** Rows with a smaller seq (newest first). */
  antesDe: number | null;
  pageSize: number;
}

export interface Verificacion {
  consistente: boolean;
  filas: number;
  rotura: Rotura;
  ancla?: { seq: number; hash: string };
}

export interface AuditoriaStore {
  /** Appends in a transaction of its own; false when the event id was already written (a redelivery). */
  anexar(hecho: Hecho): Promise<boolean>;
  /** anexar of several, in order, in one transaction of their own (one commit for all of them). */
  anexarVarios(hechos: readonly Hecho[]): Promise<boolean[]>;
  listar(filtro: AuditoriaFiltro): Promise<{ registros: Registro[]; hasMore: boolean }>;
  /** Recomputes the chain, in batches, and compares it with `ancla` (the last anchor published), if any. */
  verificar(ancla: { seq: number; hash: string } | undefined): Promise<Verificacion>;
  /** Adds failed logins to their (address, window) rows: one statement per address and flush. */
  sumarFallos(ventana: Date, porDireccion: ReadonlyMap<string, number>): Promise<void>;
  /** Writes one audit row per window closed before `antesDe` and not yet written; returns how many. */
  cerrarVentanas(antesDe: Date, ventanaMs: number): Promise<number>;
  /** In one transaction: when the head moved since the last anchor, `evento(head)` goes to the outbox. */
  anclar(
    evento: (cabeza: { seq: number; hash: string }) => OutboxEvent,
  ): Promise<{ seq: number; hash: string } | undefined>;
}

const VERIFY_BATCH = 1000;

async function listar(db: Knex, filtro: AuditoriaFiltro): Promise<{ registros: Registro[]; hasMore: boolean }> {
  const rows = await withDbErrors(() => {
    const q = db<RegistroRow>('auditoria')
      .orderBy('seq', 'desc')
      .limit(filtro.pageSize + 1);
    if (filtro.antesDe !== null) q.where('seq', '<', filtro.antesDe);
    if (filtro.principalId !== undefined) q.where('principal_id', filtro.principalId);
    if (filtro.accion) q.where('accion', filtro.accion);
    if (filtro.desde) q.where('ocurrido_en', '>=', filtro.desde);
    if (filtro.hasta) q.where('ocurrido_en', '<', filtro.hasta);
    return q;
  });
  return { registros: rows.slice(0, filtro.pageSize).map(toRegistro), hasMore: rows.length > filtro.pageSize };
}

async function verificar(db: Knex, ancla: { seq: number; hash: string } | undefined): Promise<Verificacion> {
  let previo: { seq: number; hash: Buffer } = { seq: 0, hash: GENESIS };
  let rotura: Rotura;
  let filas = 0;
  let anclaVista: Buffer | undefined;
  for (;;) {
    const rows = (
      await withDbErrors(() =>
        db<RegistroRow>('auditoria').where('seq', '>', previo.seq).orderBy('seq').limit(VERIFY_BATCH),
      )
    ).map(toRegistro);
    filas += rows.length;
    const tramo = verificarTramo(previo, rows);
    if (ancla) anclaVista ??= rows.find((r) => r.seq === ancla.seq)?.hash;
    previo = tramo.ultimo;
    if (tramo.rotura) {
      rotura = tramo.rotura;
      break;
    }
    if (rows.length < VERIFY_BATCH) break;
  }
  if (!rotura && ancla) {
    // The chain must still reach the anchor, with the anchored hash: a deleted tail falls short of it.
    if (previo.seq < ancla.seq)
      rotura = {
        seq: previo.seq + 1,
        motivo: `la cadena termina en la fila ${previo.seq}, antes del ancla publicada en ${ancla.seq}`,
      };
    else if (anclaVista?.toString('hex') !== ancla.hash)
      rotura = { seq: ancla.seq, motivo: 'su hash no es el del ancla publicada' };
  }
  return { consistente: rotura === undefined, filas, rotura, ...(ancla ? { ancla } : {}) };
}

async function sumarFallos(db: Knex, ventana: Date, porDireccion: ReadonlyMap<string, number>): Promise<void> {
  if (porDireccion.size === 0) return;
  await withDbErrors(async () => {
    for (const [direccion, intentos] of porDireccion) {
      await db.raw(
        'INSERT INTO fallos_autenticacion (direccion, ventana, intentos) VALUES (?, ?, ?) ON DUPLICATE KEY ' +
          'UPDATE intentos = intentos + VALUES(intentos)',
        [direccion, ventana, intentos],
      );
    }
  });
}

async function cerrarVentanas(db: Knex, antesDe: Date, ventanaMs: number): Promise<number> {
  const pendientes = await withDbErrors(() =>
    db<{ direccion: string; ventana: Date }>('fallos_autenticacion')
      .where('auditada', false)
      .where('ventana', '<', antesDe)
      .select('direccion', 'ventana')
      .limit(500),
  );
  let escritas = 0;
  for (const { direccion, ventana } of pendientes) {
    const written = await writeTransaction(db, async (trx) => {
      const [[row]] = (await trx.raw(
        'SELECT intentos, auditada FROM fallos_autenticacion WHERE direccion = ? AND ventana = ? FOR UPDATE',
        [direccion, ventana],
      )) as [{ intentos: number; auditada: number }[]];
      if (!row || row.auditada) return false;
      await trx.raw('UPDATE fallos_autenticacion SET auditada = TRUE WHERE direccion = ? AND ventana = ?', [
        direccion,
        ventana,
      ]);
      return anexar(trx, {
        eventoId: `fallos:${direccion}:${ventana.toISOString()}`,
        accion: 'AutenticacionFallida',
        recurso: '/autenticacion',
        principalId: null,
        usuario: '',
        metodoAuth: '',
        tokenId: null,
        requestId: '',
        direccion,
        datos: jsonCanonico({
          intentos: row.intentos,
          desde: ventana.toISOString(),
          hasta: new Date(ventana.getTime() + ventanaMs).toISOString(),
        }),
        ocurridoEn: new Date(ventana.getTime() + ventanaMs),
      });
    });
    if (written) escritas++;
  }
  return escritas;
}

function anclar(
  db: Knex,
  deps: { onCommitted?: () => void },
  evento: (cabeza: { seq: number; hash: string }) => OutboxEvent,
): Promise<{ seq: number; hash: string } | undefined> {
  return writeTransaction(
    db,
    async (trx) => {
      const [[cabeza]] = (await trx.raw(
        'SELECT seq, hash, anclada_seq FROM auditoria_cabeza WHERE id = 1 FOR UPDATE',
      )) as [{ seq: number | string; hash: Buffer; anclada_seq: number | string }[]];
      if (!cabeza || Number(cabeza.seq) === 0 || Number(cabeza.seq) === Number(cabeza.anclada_seq)) return undefined;
      const head = { seq: Number(cabeza.seq), hash: Buffer.from(cabeza.hash).toString('hex') };
      await enqueueEvent(trx, evento(head));
      await trx.raw('UPDATE auditoria_cabeza SET anclada_seq = ? WHERE id = 1', [head.seq]);
      return head;
    },
    { onCommitted: deps.onCommitted },
  );
}

/**
 * `sentenciasJuntas`: the pool takes several statements in one query (createDb's `multipleStatements`), so a batch's
 * appends send four statements in two round trips.
 */
export function createAuditoriaStore(
  db: Knex,
  deps: { onCommitted?: () => void; sentenciasJuntas?: boolean },
): AuditoriaStore {
  const juntas = deps.sentenciasJuntas ?? false;
  return {
    anexar: (hecho) => writeTransaction(db, (trx) => anexar(trx, hecho)),
    anexarVarios: (hechos) => writeTransaction(db, (trx) => anexarVarios(trx, hechos, juntas)),
    listar: (filtro) => listar(db, filtro),
    verificar: (ancla) => verificar(db, ancla),
    sumarFallos: (ventana, porDireccion) => sumarFallos(db, ventana, porDireccion),
    cerrarVentanas: (antesDe, ventanaMs) => cerrarVentanas(db, antesDe, ventanaMs),
    anclar: (evento) => anclar(db, deps, evento),
  };
}
