// A new reservation: its locks, what it requires of them, its row, its holds and lines; a due reservation that
// still holds its referencia is recorded EXPIRADA first.

import { enqueueEvents, isDuplicateEntry, NotFoundError, type CallContext, type Knex } from '@inventario/platform';
import { bodegaEliminandose } from '../domain/bodega';
import { clave } from '../domain/existencia';
import {
  agregarLineas,
  reservaActivaExistente,
  reservaInsuficiente,
  type Faltante,
  type LineaSolicitada,
  type NuevaReserva,
  type Reserva,
} from '../domain/reserva';
import type { WriteContext } from '../events/bodega-events';
import { bloquearBodegas, lecturasDeBodegas, plegarSiHaceFalta, type BodegaBloqueada } from './ocupacion';
import { expirarRetencionesVencidas, type LineaFila } from './reservas-en-niveles';
import { sincronizarAlertasDisponible } from './alertas-disponible';
import type { ReservaStoreDeps } from './reserva-tipos';
import { aReserva, leerFila } from './reserva-lecturas';
import { enviar, evento, write } from './reserva-escritura';
import { expirar } from './reserva-transiciones';

/** A level as a reservation's creation locks it. */
interface NivelLeido {
  bodega_id: number;
  producto_id: number;
  cantidad: number;
  reservada: number;
  alerta_sobre: string;
}

/** A reservation whose referencia is held by a due one, which must be recorded EXPIRADA first. */
class ReferenciaVencida extends Error {
  constructor(readonly reservaId: number) {
    super(`reservation ${reservaId} is due and still holds its referencia`);
    this.name = 'ReferenciaVencida';
  }
}

/** A new reservation's locks: its warehouses (held shared), then its levels. */
async function bloquearParaCrear(
  trx: Knex.Transaction,
  deps: ReservaStoreDeps,
  lineas: readonly LineaSolicitada[],
): Promise<{ bodegas: Map<number, BodegaBloqueada>; niveles: NivelLeido[] }> {
  const ids = [...new Set(lineas.map((l) => l.bodegaId))];
  const pares = lineas.map((l) => [l.bodegaId, l.productoId] as const);
  // Holds move no units: the warehouses are held shared, for the lock order and to see them exist.
  const bloqueos = new Map(ids.map((id) => [id, 'compartido' as const]));
  const nivelesQ = trx('existencias')
    .whereIn(
      ['bodega_id', 'producto_id'],
      pares.map((p) => [...p]),
    )
    .orderBy('id')
    .forUpdate()
    .select<NivelLeido[]>('bodega_id', 'producto_id', 'cantidad', 'reservada', 'alerta_sobre');
  let bodegas: Map<number, BodegaBloqueada>;
  let niveles: NivelLeido[];
  if (deps.sentenciasJuntas) {
    // Both locking reads, in this order, in one query (issue 24).
    const lecturas = lecturasDeBodegas(bloqueos);
    const partes = [...lecturas.map((l) => l.consulta), nivelesQ.toSQL().toNative()];
    const [resultados] = (await trx.raw(
      partes.map((p) => p.sql).join(';\n'),
      partes.flatMap((p) => p.bindings as Knex.RawBinding[]),
    )) as [unknown[][]];
    bodegas = await plegarSiHaceFalta(
      trx,
      lecturas.flatMap((l, i) => l.leidas(resultados[i] as Parameters<typeof l.leidas>[0])),
    );
    niveles = resultados[lecturas.length] as NivelLeido[];
  } else {
    bodegas = await bloquearBodegas(trx, bloqueos);
    niveles = await nivelesQ;
  }
  return { bodegas, niveles };
}

/**
 * What a new reservation requires of what it locked: every warehouse there and none being deleted, and its units
 * available once its levels' due holds are ended.
 */
async function comprobarDisponible(
  trx: Knex.Transaction,
  reloj: string,
  {
    nueva,
    lineas,
    bodegas,
    niveles,
  }: {
    nueva: NuevaReserva;
    lineas: readonly LineaSolicitada[];
    bodegas: Map<number, BodegaBloqueada>;
    niveles: NivelLeido[];
  },
): Promise<void> {
  const faltan = nueva.lineas.flatMap((l, i) =>
    bodegas.has(l.bodegaId) ? [] : [{ campo: `lineas[${i}].bodegaId`, mensaje: `no existe la bodega ${l.bodegaId}` }],
  );
  if (faltan.length > 0) throw NotFoundError.campos(faltan);
  const marcada = [...bodegas.values()].find((b) => b.eliminando);
  if (marcada) throw bodegaEliminandose(marcada.id);
  // A level that holds nothing (reservada is the sum of its lines' holds) has no due hold to end.
  const liberadas = await expirarRetencionesVencidas(
    trx,
    reloj,
    niveles.filter((n) => n.reservada > 0).map((n) => [n.bodega_id, n.producto_id] as const),
  );
  const porNivel = new Map(niveles.map((n) => [clave(n.bodega_id, n.producto_id), n]));
  const faltantes: Faltante[] = [];
  for (const l of lineas) {
    const k = clave(l.bodegaId, l.productoId);
    const n = porNivel.get(k);
    const disponible = n ? n.cantidad - (n.reservada - (liberadas.get(k) ?? 0)) : 0;
    if (disponible < l.cantidad)
      faltantes.push({ bodegaId: l.bodegaId, productoId: l.productoId, solicitado: l.cantidad, disponible });
  }
  if (faltantes.length > 0) throw reservaInsuficiente(faltantes);
}

/** The reservation's row; answers its id. Its referencia held by a due reservation: ReferenciaVencida. */
async function insertarReserva(
  trx: Knex.Transaction,
  reloj: string,
  { nueva, caller }: { nueva: NuevaReserva; caller: CallContext },
): Promise<number> {
  try {
    const [res] = (await trx.raw(
      `INSERT INTO reservas (referencia, estado, expira_en, version, usuario, comentario, fecha_creacion, ` +
        `fecha_actualizacion)
           VALUES (?, 'ACTIVA', ${reloj} + INTERVAL ? SECOND, 1, ?, ?, ${reloj}, ${reloj})`,
      [nueva.referencia, nueva.ttlSegundos, caller.usuario, nueva.comentario],
    )) as [{ insertId: number }];
    return Number(res.insertId);
  } catch (err) {
    if (!isDuplicateEntry(err)) throw err;
    const [otras] = (await trx.raw(
      `SELECT id, expira_en <= ${reloj} AS vencida FROM reservas WHERE referencia_activa = ? LOCK IN SHARE MODE`,
      [nueva.referencia],
    )) as [{ id: number | string; vencida: number }[]];
    const otra = otras[0];
    if (otra && Number(otra.vencida) === 1) throw new ReferenciaVencida(Number(otra.id));
    throw reservaActivaExistente(nueva.referencia, Number(otra?.id ?? 0));
  }
}

function crearUna(
  db: Knex,
  deps: ReservaStoreDeps,
  { nueva, caller }: { nueva: NuevaReserva; caller: CallContext },
): Promise<Reserva> {
  return write(db, deps, caller, async (trx) => {
    const lineas = agregarLineas(nueva.lineas);
    const { bodegas, niveles } = await bloquearParaCrear(trx, deps, lineas);
    await comprobarDisponible(trx, deps.reloj, { nueva, lineas, bodegas, niveles });
    const id = await insertarReserva(trx, deps.reloj, { nueva, caller });
    // The holds on the levels, then the lines (whose first id the INSERT answers), in one round trip when the
    // pool allows.
    let primeraLinea = 0;
    // A line as inserted: it holds all its units, none consumed yet.
    const nuevaLinea = (l: (typeof lineas)[number]) => ({
      reserva_id: id,
      bodega_id: l.bodegaId,
      producto_id: l.productoId,
      cantidad: l.cantidad,
      consumida: 0,
      retenida: l.cantidad,
    });
    await enviar(trx, deps, [
      ...lineas.map((l) => ({
        sentencia: trx('existencias')
          .where({ bodega_id: l.bodegaId, producto_id: l.productoId })
          .increment('reservada', l.cantidad),
      })),
      {
        sentencia: trx('reserva_lineas').insert(lineas.map(nuevaLinea)),
        comprobar: (_filas: number, insertId: number) => (primeraLinea = insertId),
      },
    ]);
    // One line: its id is the insert's and the rest is what was written. Several: read back.
    const { fila, lineas: filas } = await leerFila(trx, deps.reloj, id, { lineas: lineas.length > 1 });
    const escritas: LineaFila[] =
      lineas.length > 1 ? filas : lineas.map((l) => ({ id: primeraLinea, ...nuevaLinea(l) }));
    const reserva = aReserva(fila, escritas);
    const ctx: WriteContext = { ...caller, at: fila.ahora };
    // A hold lowers `disponible`: a threshold watching it may be reached (§13.9); only such levels are read.
    const vigilan = niveles
      .filter((n) => n.alerta_sobre !== 'CANTIDAD')
      .map((n) => [n.bodega_id, n.producto_id] as const);
    await sincronizarAlertasDisponible(trx, deps.umbrales, vigilan, ctx, null);
    await enqueueEvents(trx, [evento(deps, 'ReservaCreada', reserva, ctx)]);
    return reserva;
  });
}

export async function crear(
  db: Knex,
  deps: ReservaStoreDeps,
  { nueva, caller }: { nueva: NuevaReserva; caller: CallContext },
): Promise<Reserva> {
  try {
    return await crearUna(db, deps, { nueva, caller });
  } catch (err) {
    if (!(err instanceof ReferenciaVencida)) throw err;
    // A due reservation of the referencia is recorded EXPIRADA first, so it does not block the new one. Looked
    // for only when the referencia is taken (issue 24: no read ahead of every reservation).
    await expirar(db, deps, err.reservaId);
  }
  try {
    return await crearUna(db, deps, { nueva, caller });
  } catch (err) {
    // Taken again, by one that fell due meanwhile: the referencia's reservation is still active as far as
    // this request goes.
    if (err instanceof ReferenciaVencida) throw reservaActivaExistente(nueva.referencia, err.reservaId);
    throw err;
  }
}
