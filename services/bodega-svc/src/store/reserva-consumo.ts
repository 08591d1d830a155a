// A reservation's consumption: the lines it takes, their holds lowered, the exit (one SALIDA operation), and the
// reservation ended when nothing is left held.

import { InvalidArgumentError, type CallContext, type Knex } from '@inventario/platform';
import { clave } from '../domain/existencia';
import { reservaNoActiva, type ConsumoSolicitado, type Reserva } from '../domain/reserva';
import type { WriteContext } from '../events/bodega-events';
import { sentenciasTerminales, terminarReserva } from './reservas-en-niveles';
import type { Sentencia } from './sentencias';
import {
  bajarReservada,
  consumirLinea,
  insertarConsumos,
  insertarEventos,
  nuevaVersionDeReserva,
} from './sentencias-fijas';
import type { ReservaOptions, ReservaStoreDeps } from './reserva-tipos';
import { bloquear, enviar, evento, requireVersion, write, type ReservaBloqueada } from './reserva-escritura';

/** A reservation's line and the units a consumption takes of it. */
interface Toma {
  linea: Reserva['lineas'][number];
  cantidad: number;
}

/** The lines a consumption takes (all that is held when it names none), each within what the line holds. */
function lineasATomar(id: number, reserva: Reserva, consumo: ConsumoSolicitado): Toma[] {
  const pedidas = new Map<number, number>();
  if (consumo.lineas.length === 0) for (const l of reserva.lineas) pedidas.set(l.id, l.retenida);
  else for (const l of consumo.lineas) pedidas.set(l.lineaId, (pedidas.get(l.lineaId) ?? 0) + l.cantidad);
  const errores: { campo: string; mensaje: string }[] = [];
  for (const [lineaId, cantidad] of pedidas) {
    const linea = reserva.lineas.find((l) => l.id === lineaId);
    if (!linea) errores.push({ campo: 'lineas', mensaje: `la línea ${lineaId} no es de la reserva ${id}` });
    else if (cantidad > linea.retenida)
      errores.push({
        campo: 'lineas',
        mensaje: `la línea ${lineaId} retiene ${linea.retenida} unidades, se consumen ${cantidad}`,
      });
  }
  if (errores.length > 0) throw new InvalidArgumentError(errores);
  return reserva.lineas
    .filter((l) => (pedidas.get(l.id) ?? 0) > 0)
    .map((l) => ({ linea: l, cantidad: pedidas.get(l.id)! }));
}

/**
 * A consumption's units out: its lines' holds lowered, then the exit (one SALIDA operation); answers the operation
 * and the INSERT of its consumptions, not sent.
 */
async function salidaDelConsumo(
  trx: Knex.Transaction,
  deps: ReservaStoreDeps,
  {
    id,
    consumo,
    caller,
    ctx,
    bloqueada,
    tomar,
  }: {
    id: number;
    consumo: ConsumoSolicitado;
    caller: CallContext;
    ctx: WriteContext;
    bloqueada: ReservaBloqueada;
    tomar: Toma[];
  },
): Promise<{ operacionId: number; consumos: Sentencia }> {
  const { reserva, instante } = bloqueada;
  // The hold goes first, so the exit finds the units it takes no longer held.
  await enviar(
    trx,
    deps,
    tomar.flatMap(({ linea, cantidad }) => [
      { sentencia: consumirLinea(linea.id, linea.retenida - cantidad, linea.consumida + cantidad) },
      { sentencia: bajarReservada(linea.bodegaId, linea.productoId, cantidad) },
    ]),
  );
  const bajadas = new Map<string, number>();
  for (const { linea, cantidad } of tomar) {
    const k = clave(linea.bodegaId, linea.productoId);
    bajadas.set(k, (bajadas.get(k) ?? 0) + cantidad);
  }
  const operacion = await deps.existencias.salidaDeReserva(
    trx,
    ctx.at,
    caller,
    tomar.map(({ linea, cantidad }) => ({ bodegaId: linea.bodegaId, productoId: linea.productoId, cantidad })),
    consumo.comentario ?? `consumo de la reserva ${id} (${reserva.referencia})`,
    {
      bodegas: bloqueada.bodegas,
      // The levels as this write left them: their holds lowered by what it consumes.
      niveles: bloqueada.niveles.map((n) => ({
        ...n,
        reservada:
          n.reservada === undefined ? undefined : n.reservada - (bajadas.get(clave(n.bodega_id, n.producto_id)) ?? 0),
      })),
    },
  );
  return {
    operacionId: operacion.id,
    consumos: {
      sentencia: insertarConsumos(
        tomar.map(({ linea, cantidad }) => ({
          reserva_id: id,
          linea_id: linea.id,
          operacion_id: operacion.id,
          cantidad,
          fecha: instante,
        })),
      ),
    },
  };
}

export function consumir(
  db: Knex,
  deps: ReservaStoreDeps,
  { id, consumo, caller, opts }: { id: number; consumo: ConsumoSolicitado; caller: CallContext; opts: ReservaOptions },
): Promise<{ reserva: Reserva; operacionId: number | null }> {
  return write(db, deps, caller, async (trx) => {
    const bloqueada = await bloquear(trx, deps, id, { conBodegas: true });
    const { reserva } = bloqueada;
    requireVersion(reserva, opts.expectedVersion);
    // From the exact instant of expiry, swept or not (the state is read at the clock, under the row's lock).
    if (reserva.estado !== 'ACTIVA') throw reservaNoActiva(id, reserva.estado);
    const tomar = lineasATomar(id, reserva, consumo);
    // One instant for the whole write, the one its state was judged at (issue 24: no read of the clock of its
    // own): its consumptions are dated before the expiry that instant was before.
    const ctx: WriteContext = { ...caller, at: bloqueada.ahora };
    const { instante } = bloqueada;
    let operacionId: number | null = null;
    // What this write leaves in the database, which it answers without reading it back (issue 24).
    const tomadas = new Map(tomar.map(({ linea, cantidad }) => [linea.id, cantidad]));
    const lineasDespues = reserva.lineas.map((l) => {
      const cantidad = tomadas.get(l.id) ?? 0;
      return { ...l, retenida: l.retenida - cantidad, consumida: l.consumida + cantidad };
    });
    const ultimas: Sentencia[] = [];
    if (tomar.length > 0) {
      const salida = await salidaDelConsumo(trx, deps, { id, consumo, caller, ctx, bloqueada, tomar });
      operacionId = salida.operacionId;
      ultimas.push(salida.consumos);
    }
    const quedan = lineasDespues.reduce((s, l) => s + l.retenida, 0);
    const termina = quedan === 0 || consumo.liberarResto;
    if (termina && quedan > 0) {
      // The rest let go: the one terminal transition lets go of the holds left and judges their alerts.
      await enviar(trx, deps, ultimas.splice(0));
      await terminarReserva(trx, deps, id, 'CONSUMIDA', ctx, null, instante);
    } else if (termina) {
      // Whole: nothing is held any more, so the transition moves no hold and no alert (the exit judged them).
      ultimas.push(...sentenciasTerminales(trx, deps, id, 'CONSUMIDA', instante));
    } else {
      ultimas.push({ sentencia: nuevaVersionDeReserva(id, instante) });
    }
    const despues: Reserva = {
      ...reserva,
      estado: termina ? 'CONSUMIDA' : 'ACTIVA',
      version: reserva.version + 1,
      fechaActualizacion: bloqueada.ahora,
      // An ended hold holds nothing.
      lineas: lineasDespues.map((l) => (termina ? { ...l, retenida: 0 } : l)),
    };
    // This consumption's event announces it, and the terminal transition when there is one.
    const enCola = insertarEventos([evento(deps, 'ReservaConsumida', despues, ctx, operacionId ?? undefined)]);
    if (enCola) ultimas.push({ sentencia: enCola });
    await enviar(trx, deps, ultimas);
    return { reserva: despues, operacionId };
  });
}
