/**
 * Model-based property test of reservations (docs/contract.md §13) against the real stores and
 * MariaDB, the database clock driven by the test. fast-check generates programs of: reserve
 * (multi-line, duplicate lines of one level), consume (whole, partial, with liberarResto),
 * release, extend, advance the clock (by one microsecond up to seconds), exit, entry, transfer,
 * count (also below the reserved figure), level removal and product deletion. An in-memory model,
 * written from the contract, predicts each answer; after every step the answer, every
 * reservation's state and lines, every level's cantidad and reservada equal the model's, and the
 * holds' invariants hold in SQL. A fixed seed (FUZZ_SEED overrides it) makes a failure reproducible.
 */
import type { DomainError } from '@inventario/platform';
import fc from 'fast-check';
import { validateConsumo, validateNuevaReserva, LIMITES_RESERVA } from '../src/domain/reserva';
import { problemasDeReservas, startReservasHarness, USUARIO, type ReservasHarness } from './support/reservas-harness';

const SEED = Number(process.env.FUZZ_SEED ?? 20261129);
const RUNS = 25;
const BASE = Date.UTC(2030, 0, 1) * 1000; // µs

let h: ReservasHarness;
let run = 0;

beforeAll(async () => {
  process.stdout.write(`reserva-property: fast-check seed ${SEED} (set FUZZ_SEED to replay another)\n`);
  h = await startReservasHarness('reserva_prop');
});

afterAll(async () => {
  await h?.close();
});

type Estado = 'ACTIVA' | 'CONSUMIDA' | 'LIBERADA' | 'EXPIRADA' | 'DESCUBIERTA';
interface LineaM {
  b: number;
  p: number;
  cantidad: number;
  consumida: number;
  retenida: number;
}
interface ReservaM {
  id: number;
  referencia: string;
  estado: Estado;
  expiraEn: number;
  lineas: LineaM[];
}

/** The model: levels by `b:p`, reservations in creation order, the clock in µs, deleted products. */
class Modelo {
  niveles = new Map<string, number>();
  reservas: ReservaM[] = [];
  reloj = BASE;
  eliminados = new Set<number>();

  efectivo(r: ReservaM): Estado {
    return r.estado === 'ACTIVA' && this.reloj >= r.expiraEn ? 'EXPIRADA' : r.estado;
  }
  vigente(k: string): number {
    let n = 0;
    for (const r of this.reservas)
      if (this.efectivo(r) === 'ACTIVA') for (const l of r.lineas) if (`${l.b}:${l.p}` === k) n += l.retenida;
    return n;
  }
  terminar(r: ReservaM, estado: Estado): void {
    r.estado = estado;
    for (const l of r.lineas) l.retenida = 0;
  }
  /** A count or a deletion: the newest holds of the level end DESCUBIERTA until it covers what it holds. */
  descubrir(k: string, despues: number): void {
    let exceso = this.vigente(k) - despues;
    for (const r of [...this.reservas].reverse()) {
      if (exceso <= 0) break;
      if (this.efectivo(r) !== 'ACTIVA') continue;
      const l = r.lineas.find((x) => `${x.b}:${x.p}` === k && x.retenida > 0);
      if (!l) continue;
      exceso -= l.retenida;
      this.terminar(r, 'DESCUBIERTA');
    }
  }
}

type Cmd =
  | { kind: 'reservar'; lineas: { b: number; p: number; cantidad: number }[]; ttl: number; ref: number }
  | { kind: 'consumir'; r: number; linea: number | null; cantidad: number; liberarResto: boolean }
  | { kind: 'liberar'; r: number }
  | { kind: 'extender'; r: number; segundos: number }
  | { kind: 'avanzar'; micros: number }
  | { kind: 'entrada' | 'salida' | 'conteo'; b: number; p: number; cantidad: number }
  | { kind: 'transferir'; b: number; p: number; cantidad: number }
  | { kind: 'retirar'; b: number; p: number }
  | { kind: 'eliminarProducto'; p: number };

const idx = fc.nat(1);
const cmd: fc.Arbitrary<Cmd> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('reservar' as const),
      lineas: fc.array(fc.record({ b: idx, p: idx, cantidad: fc.integer({ min: 1, max: 4 }) }), {
        minLength: 1,
        maxLength: 3,
      }),
      ttl: fc.integer({ min: 1, max: 4 }),
      ref: fc.nat(2),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('consumir' as const),
      r: fc.nat(20),
      linea: fc.option(fc.nat(2)),
      cantidad: fc.integer({ min: 1, max: 3 }),
      liberarResto: fc.boolean(),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('liberar' as const), r: fc.nat(20) }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('extender' as const),
      r: fc.nat(20),
      segundos: fc.integer({ min: 1, max: 3 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('avanzar' as const),
      micros: fc.constantFrom(1, 999_999, 1_000_000, 2_500_000),
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constantFrom('entrada' as const, 'salida' as const, 'conteo' as const),
      b: idx,
      p: idx,
      cantidad: fc.integer({ min: 0, max: 8 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('transferir' as const),
      b: idx,
      p: idx,
      cantidad: fc.integer({ min: 1, max: 4 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('retirar' as const), b: idx, p: idx }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('eliminarProducto' as const), p: idx }) },
);

const stamp = (us: number) => {
  const d = new Date(Math.floor(us / 1000)).toISOString().slice(0, 19).replace('T', ' ');
  return `${d}.${String(us % 1_000_000).padStart(6, '0')}`;
};

async function answer(call: Promise<unknown>): Promise<string> {
  try {
    await call;
    return 'ok';
  } catch (err) {
    const e = err as DomainError & { reason?: string };
    if (typeof e.code !== 'string') throw err;
    return e.reason ?? e.code;
  }
}

async function ejecutar(program: Cmd[]): Promise<void> {
  run += 1;
  const m = new Modelo();
  const bodegas = [
    (await h.bodegas.create({ nombre: `Prop ${run} a ${Date.now()}`, ubicacion: null, capacidad: 100_000 }, USUARIO))
      .id,
    (await h.bodegas.create({ nombre: `Prop ${run} b ${Date.now()}`, ubicacion: null, capacidad: 100_000 }, USUARIO))
      .id,
  ];
  const productos = [20_000 + run * 2, 20_001 + run * 2];
  await h.fijarReloj(stamp(BASE));
  // Every level starts with units, so holds, and the writes that meet them, are the common case.
  for (const b of bodegas) {
    for (const p of productos) {
      await h.existencias.registrarMovimiento(
        { bodegaId: b, productoId: p, tipo: 'ENTRADA', motivo: 'RECEPCION', cantidad: 6, comentario: null },
        USUARIO,
        {},
      );
      m.niveles.set(`${b}:${p}`, 6);
    }
  }
  const log: string[] = [];
  for (const c of program) {
    let esperado: string;
    let real: string;
    const B = (i: number) => bodegas[i]!;
    const P = (i: number) => productos[i]!;
    switch (c.kind) {
      case 'reservar': {
        const referencia = `r${run}-${c.ref}`;
        const demanda = new Map<string, { b: number; p: number; cantidad: number }>();
        for (const l of c.lineas) {
          const k = `${B(l.b)}:${P(l.p)}`;
          const d = demanda.get(k);
          demanda.set(k, { b: B(l.b), p: P(l.p), cantidad: (d?.cantidad ?? 0) + l.cantidad });
        }
        const corta = [...demanda].some(([k, d]) => (m.niveles.get(k) ?? 0) - m.vigente(k) < d.cantidad);
        const activa = m.reservas.find((r) => r.referencia === referencia && m.efectivo(r) === 'ACTIVA');
        esperado = corta ? 'STOCK_INSUFICIENTE' : activa ? 'RESERVA_ACTIVA_EXISTENTE' : 'ok';
        let id = 0;
        real = await answer(
          h.reservas
            .crear(
              validateNuevaReserva(
                {
                  referencia,
                  ttlSegundos: c.ttl,
                  lineas: c.lineas.map((l) => ({ bodegaId: B(l.b), productoId: P(l.p), cantidad: l.cantidad })),
                },
                LIMITES_RESERVA,
              ),
              USUARIO,
            )
            .then((r) => (id = r.id)),
        );
        if (real === 'ok' && esperado === 'ok') {
          for (const r of m.reservas)
            if (r.referencia === referencia && m.efectivo(r) === 'EXPIRADA') m.terminar(r, 'EXPIRADA');
          const lineas = [...demanda.values()]
            .sort((x, y) => x.b - y.b || x.p - y.p)
            .map((d) => ({ ...d, consumida: 0, retenida: d.cantidad }));
          m.reservas.push({ id, referencia, estado: 'ACTIVA', expiraEn: m.reloj + c.ttl * 1_000_000, lineas });
        }
        break;
      }
      case 'consumir': {
        const r = m.reservas[c.r % Math.max(1, m.reservas.length)];
        if (!r) continue;
        const e = m.efectivo(r);
        const linea = c.linea === null ? undefined : r.lineas[c.linea % r.lineas.length]!;
        const ids = (await h.reservas.get(r.id)).lineas.map((l) => l.id);
        const lineaId = linea ? ids[r.lineas.indexOf(linea)]! : 0;
        if (e !== 'ACTIVA') esperado = `RESERVA_${e}`;
        else if (linea && c.cantidad > linea.retenida) esperado = 'INVALID_ARGUMENT';
        else esperado = 'ok';
        const consumo = validateConsumo({
          lineas: linea ? [{ lineaId, cantidad: c.cantidad }] : [],
          liberarResto: c.liberarResto,
        });
        real = await answer(h.reservas.consumir(r.id, consumo, USUARIO, {}));
        if (esperado === 'ok') {
          for (const l of r.lineas) {
            const q = linea ? (l === linea ? c.cantidad : 0) : l.retenida;
            l.retenida -= q;
            l.consumida += q;
            const k = `${l.b}:${l.p}`;
            m.niveles.set(k, m.niveles.get(k)! - q);
          }
          if (c.liberarResto || r.lineas.every((l) => l.retenida === 0)) m.terminar(r, 'CONSUMIDA');
        }
        break;
      }
      case 'liberar': {
        const r = m.reservas[c.r % Math.max(1, m.reservas.length)];
        if (!r) continue;
        const e = m.efectivo(r);
        esperado = e === 'ACTIVA' || e === 'LIBERADA' ? 'ok' : `RESERVA_${e}`;
        real = await answer(h.reservas.liberar(r.id, USUARIO, {}));
        if (e === 'ACTIVA') m.terminar(r, 'LIBERADA');
        break;
      }
      case 'extender': {
        const r = m.reservas[c.r % Math.max(1, m.reservas.length)];
        if (!r) continue;
        const e = m.efectivo(r);
        esperado = e === 'ACTIVA' ? 'ok' : `RESERVA_${e}`;
        // Whole milliseconds (what a client's instant carries), later than now and than the current expiry.
        const nueva = (Math.floor(r.expiraEn / 1000) + c.segundos * 1000) * 1000;
        real = await answer(h.reservas.extender(r.id, new Date(nueva / 1000), USUARIO, {}));
        if (esperado === 'ok') r.expiraEn = nueva;
        break;
      }
      case 'avanzar':
        m.reloj += c.micros;
        await h.avanzar(c.micros);
        esperado = real = 'ok';
        break;
      case 'entrada':
      case 'salida':
      case 'conteo': {
        const [b, p] = [B(c.b), P(c.p)];
        const k = `${b}:${p}`;
        const cantidad = m.niveles.get(k) ?? 0;
        const tipo = c.kind === 'entrada' ? 'ENTRADA' : c.kind === 'salida' ? 'SALIDA' : 'AJUSTE';
        const q = c.kind === 'conteo' ? c.cantidad : Math.max(1, c.cantidad);
        if (m.eliminados.has(p)) esperado = 'PRODUCTO_ELIMINADO';
        else if (c.kind === 'salida' && q > cantidad) esperado = 'STOCK_INSUFICIENTE';
        else if (c.kind === 'salida' && cantidad - q < m.vigente(k)) esperado = 'STOCK_RESERVADO';
        else esperado = 'ok';
        const motivo = c.kind === 'entrada' ? 'RECEPCION' : c.kind === 'salida' ? 'VENTA' : 'CONTEO';
        real = await answer(
          h.existencias.registrarMovimiento(
            { bodegaId: b, productoId: p, tipo, motivo, cantidad: q, comentario: null },
            USUARIO,
            {},
          ),
        );
        if (esperado === 'ok') {
          if (c.kind === 'conteo') m.descubrir(k, q);
          m.niveles.set(k, c.kind === 'entrada' ? cantidad + q : c.kind === 'salida' ? cantidad - q : q);
        }
        break;
      }
      case 'transferir': {
        const p = P(c.p);
        const [o, d] = [B(c.b), B(1 - c.b)];
        const [ko, kd] = [`${o}:${p}`, `${d}:${p}`];
        const cantidad = m.niveles.get(ko) ?? 0;
        if (m.eliminados.has(p)) esperado = 'PRODUCTO_ELIMINADO';
        else if (c.cantidad > cantidad) esperado = 'STOCK_INSUFICIENTE';
        else if (cantidad - c.cantidad < m.vigente(ko)) esperado = 'STOCK_RESERVADO';
        else esperado = 'ok';
        real = await answer(
          h.existencias.transferir(
            { productoId: p, origenId: o, destinoId: d, cantidad: c.cantidad, comentario: null },
            USUARIO,
            {},
          ),
        );
        if (esperado === 'ok') {
          m.niveles.set(ko, cantidad - c.cantidad);
          m.niveles.set(kd, (m.niveles.get(kd) ?? 0) + c.cantidad);
        }
        break;
      }
      case 'retirar': {
        const k = `${B(c.b)}:${P(c.p)}`;
        esperado = !m.niveles.has(k) ? 'SIN_EXISTENCIAS' : m.vigente(k) > 0 ? 'STOCK_RESERVADO' : 'ok';
        real = await answer(h.existencias.retirar(B(c.b), P(c.p), USUARIO, {}));
        if (esperado === 'ok') m.niveles.delete(k);
        break;
      }
      case 'eliminarProducto': {
        const p = P(c.p);
        await h.existencias.retirarProductoEliminado(p);
        for (const b of bodegas) {
          const k = `${b}:${p}`;
          if (!m.niveles.has(k)) continue;
          m.descubrir(k, 0);
          m.niveles.delete(k);
        }
        m.eliminados.add(p);
        esperado = real = 'ok';
        break;
      }
    }
    log.push(`${JSON.stringify(c)} → ${real}`);
    if (real !== esperado) throw new Error(`step ${log.length}: expected ${esperado}, got ${real}\n${log.join('\n')}`);
    await comparar(m, bodegas, productos, log);
  }
}

async function comparar(m: Modelo, bodegas: number[], productos: number[], log: string[]): Promise<void> {
  const fallo = (what: string, a: unknown, b: unknown) =>
    new Error(
      `after step ${log.length}: ${what}: model ${JSON.stringify(a)}, database ${JSON.stringify(b)}\n${log.join('\n')}`,
    );
  for (const r of m.reservas) {
    const db = await h.reservas.get(r.id);
    const esperado = {
      estado: m.efectivo(r),
      lineas: r.lineas.map((l) => [l.cantidad, l.consumida, m.efectivo(r) === 'ACTIVA' ? l.retenida : 0]),
    };
    const real = { estado: db.estado, lineas: db.lineas.map((l) => [l.cantidad, l.consumida, l.retenida]) };
    if (JSON.stringify(esperado) !== JSON.stringify(real)) throw fallo(`reserva ${r.id}`, esperado, real);
  }
  for (const b of bodegas) {
    for (const p of productos) {
      const k = `${b}:${p}`;
      const esperado = m.niveles.has(k) ? { cantidad: m.niveles.get(k), reservada: m.vigente(k) } : null;
      const real = await h.existencias.get(b, p).then(
        (e) => ({ cantidad: e.cantidad, reservada: e.reservada }),
        () => null,
      );
      if (JSON.stringify(esperado) !== JSON.stringify(real)) throw fallo(`nivel ${k}`, esperado, real);
    }
  }
  const problemas = await problemasDeReservas(h);
  if (problemas.length > 0) throw fallo('invariants in SQL', [], problemas);
}

describe('reservations against a model', () => {
  it('every step answers as the model predicts, and the figures, states and SQL invariants equal it', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(cmd, { minLength: 15, maxLength: 30 }), (program) => ejecutar(program)),
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    );
  }, 600_000);
});
