/**
 * Model-based property test of the stock (docs/contract.md §10) against the
 * real bodega-svc over gRPC and its MariaDB database. fast-check generates
 * programs of commands: assignments (with and without a threshold),
 * ENTRADA / SALIDA, counts (AJUSTE, against the current version or a stale
 * one), transfers, reversals of an earlier operation, capacity changes,
 * level removals, warehouse deletions (with and without writing the stock
 * out), product deletions (ProductoEliminado's write-out, sometimes
 * delivered twice), new warehouses, and repeats of earlier keyed requests.
 *
 * A pure model (support/stock-model.ts) predicts each answer. After every
 * step:
 * - the answer is the predicted one: the same lines (or level, counts,
 *   capacity), or the same refusal and `inventario-error-reason`; a repeat
 *   of a request that succeeded gets the first answer again, writing nothing;
 * - the operations written since the previous step, read with SQL, are
 *   exactly the predicted ones, line by line;
 * - the invariants hold in SQL (support/stock-invariants.ts): levels equal
 *   the sum of their lines, none negative, occupancy equal to the levels and
 *   within capacity, versions 1..n without a gap, a level's version its last
 *   line's, deleted products hold nothing;
 * - the model equals the database: warehouses, levels, last versions and
 *   deleted products.
 * Each program ends with VerificarExistencias reporting consistente.
 *
 * Each run has its own warehouses and product ids, so runs share one
 * service. A fixed seed (FUZZ_SEED overrides it) makes a failure
 * reproducible; it is printed at the start with the step log of a failure.
 */
import type { ServiceError } from '@grpc/grpc-js';
import { errorReasonOf, grpcCodeName } from '@inventario/platform';
import {
  MOTIVO_MOVIMIENTO_NAMES,
  TIPO_MOVIMIENTO_NAMES,
  TIPO_OPERACION_NAMES,
  type AsignarExistenciaResponse,
  type DeleteBodegaResponse,
  type Operacion,
  type RegistrarMovimientoResponse,
  type RetirarExistenciaResponse,
  type RevertirOperacionResponse,
  type TransferirResponse,
  type UpdateBodegaResponse,
} from '@inventario/proto';
import fc from 'fast-check';
import { productoEliminadoDe } from './support/producto-eliminado';
import { ledgerProblems, ocupacionExacta } from '@inventario/testkit';
import {
  clave,
  StockModel,
  type LineaModelo,
  type NivelModelo,
  type OperacionModelo,
  type Prediccion,
  type Rechazo,
} from './support/stock-model';
import { asUser, startTestService, type TestService } from './support/test-service';

const SEED = Number(process.env.FUZZ_SEED ?? 20261213);
const RUNS = 30;
const MIN_STEPS = 15;
const MAX_STEPS = 30;
const BODEGAS = 3;
const PRODUCTOS = 3;

/** This execution's tag: names and keys never meet an earlier execution's. */
const TAG = Date.now().toString(36);
const USER = asUser('prop');

let svc: TestService;
let eliminarProducto: (productoId: number) => Promise<void>;

beforeAll(async () => {
  process.stdout.write(`existencia-property: fast-check seed ${SEED} (set FUZZ_SEED to replay another)\n`);
  svc = await startTestService('bodega_stock_prop');
  eliminarProducto = productoEliminadoDe(svc);
});

afterAll(async () => {
  await svc?.close();
});

/** Indices into the run's pools (taken modulo their size), so every generated program is runnable. */
type Command =
  | { kind: 'crearBodega'; capacidad: number }
  | { kind: 'asignar'; b: number; p: number; cantidad: number; umbral: number | null | undefined; keyed: boolean }
  /** `fromStock`: on a level that holds units, when there is one (so exits and transfers often can succeed). */
  | { kind: 'entrada' | 'salida'; b: number; p: number; fromStock: boolean; cantidad: number; keyed: boolean }
  | { kind: 'ajuste'; b: number; p: number; cantidad: number; stale: boolean; keyed: boolean }
  | { kind: 'transferir'; p: number; o: number; d: number; fromStock: boolean; cantidad: number; keyed: boolean }
  | { kind: 'revertir'; op: number; keyed: boolean }
  | { kind: 'capacidad'; b: number; capacidad: number; keyed: boolean }
  | { kind: 'retirar'; b: number; p: number; keyed: boolean }
  | { kind: 'eliminarBodega'; b: number; retirar: boolean; keyed: boolean }
  | { kind: 'eliminarProducto'; p: number; duplicado: boolean }
  | { kind: 'repetir'; n: number };

const b = fc.nat(BODEGAS + 1);
const p = fc.nat(PRODUCTOS - 1);
const keyed = fc.boolean();
const unidades = fc.integer({ min: 1, max: 12 });
const fromStock = fc.constantFrom(true, true, false);

const command: fc.Arbitrary<Command> = fc.oneof(
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('crearBodega' as const), capacidad: fc.integer({ min: 0, max: 40 }) }),
  },
  {
    weight: 8,
    arbitrary: fc.record({
      kind: fc.constant('asignar' as const),
      b,
      p,
      cantidad: fc.integer({ min: 0, max: 20 }),
      // A threshold to set, none (kept as it is), or null: removed (quitar_umbral_minimo).
      umbral: fc.oneof(
        { weight: 3, arbitrary: fc.option(fc.integer({ min: 0, max: 8 }), { nil: undefined }) },
        fc.constant(null),
      ),
      keyed,
    }),
  },
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constantFrom('entrada' as const, 'salida' as const),
      b,
      p,
      fromStock,
      cantidad: unidades,
      keyed,
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('ajuste' as const),
      b,
      p,
      cantidad: fc.integer({ min: 0, max: 20 }),
      stale: fc.boolean(),
      keyed,
    }),
  },
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('transferir' as const),
      p,
      o: b,
      d: b,
      fromStock,
      cantidad: unidades,
      keyed,
    }),
  },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('revertir' as const), op: fc.nat(40), keyed }) },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('capacidad' as const),
      b,
      capacidad: fc.integer({ min: 0, max: 50 }),
      keyed,
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('retirar' as const), b, p, keyed }) },
  // Deletions end a warehouse's or a product's part in the run: rarer, so the rest has something to act on.
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('eliminarBodega' as const), b, retirar: fc.boolean(), keyed }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('eliminarProducto' as const), p, duplicado: fc.boolean() }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('repetir' as const), n: fc.nat(20) }) },
);

const program = fc.record({
  capacidades: fc.array(fc.integer({ min: 5, max: 40 }), { minLength: BODEGAS, maxLength: BODEGAS }),
  commands: fc.array(command, { minLength: MIN_STEPS, maxLength: MAX_STEPS }),
});

type Outcome<R> = { ok: true; res: R } | { ok: false; rechazo: Rechazo; details: string };

async function outcome<R>(call: Promise<R>): Promise<Outcome<R>> {
  try {
    return { ok: true, res: await call };
  } catch (err) {
    const e = err as ServiceError;
    if (typeof e.code !== 'number') throw err;
    const reason = errorReasonOf(e);
    return {
      ok: false,
      rechazo: { code: grpcCodeName(e.code) as Rechazo['code'], ...(reason === undefined ? {} : { reason }) },
      details: e.details,
    };
  }
}

function operacionDe(op: Operacion | undefined): OperacionModelo | undefined {
  if (!op) return undefined;
  return {
    tipo: TIPO_OPERACION_NAMES.name(op.tipo)!,
    revierteA: op.revierteA ?? null,
    lineas: op.movimientos.map((m) => ({
      bodegaId: m.bodegaId,
      productoId: m.productoId,
      tipo: TIPO_MOVIMIENTO_NAMES.name(m.tipo)!,
      motivo: MOTIVO_MOVIMIENTO_NAMES.name(m.motivo)!,
      cantidad: m.cantidad,
      cantidadAnterior: m.cantidadAnterior,
      cantidadPosterior: m.cantidadPosterior,
      version: m.version,
    })),
  };
}

/** A write-out's lines follow the levels' row ids, which the model does not track: compare them by level. */
function comparable(op: OperacionModelo): OperacionModelo {
  if (op.tipo !== 'PRODUCTO_ELIMINADO' && op.tipo !== 'BODEGA_ELIMINADA') return op;
  return { ...op, lineas: [...op.lineas].sort((x, y) => x.bodegaId - y.bodegaId || x.productoId - y.productoId) };
}

/** One request as sent, ready to be sent again verbatim. */
interface Request<R> {
  label: string;
  send: () => Promise<R>;
  predict: () => Prediccion<unknown>;
  /** What of the answer the model predicts: its value, and the operation it carries. */
  project: (res: R) => { valor: unknown; operacion?: OperacionModelo };
  keyed: boolean;
  /** The answer of its first success, when keyed: what every repeat must get. */
  recorded?: R;
}

/** A request of a known answer type, among requests of any. */
function typed<R>(request: Request<R>): Request<unknown> {
  return request as unknown as Request<unknown>;
}

/** The projection of an answer that carries the operation it wrote. */
function withOp<R extends { operacion?: Operacion | undefined }>(
  valor: (res: R) => unknown = () => null,
): (res: R) => { valor: unknown; operacion?: OperacionModelo } {
  return (res) => ({ valor: valor(res), operacion: operacionDe(res.operacion) });
}

/** Counts of what the programs did, printed at the end: each kind of answer must have been seen. */
const seen = new Map<string, number>();
function count(label: string): void {
  seen.set(label, (seen.get(label) ?? 0) + 1);
}

let runs = 0;
let steps = 0;

class Run {
  readonly model = new StockModel();
  readonly bodegas: number[] = [];
  readonly productos: number[];
  readonly keyedSent: Request<unknown>[] = [];
  lastOperacion = 0;
  keys = 0;
  readonly log: string[] = [];

  constructor(readonly id: number) {
    // Product ids live in producto-svc; bodega-svc takes any positive id, and these are this run's alone.
    this.productos = Array.from({ length: PRODUCTOS }, (_, i) => id * 100 + i);
  }

  bodega(i: number): number {
    return this.bodegas[i % this.bodegas.length]!;
  }

  producto(i: number): number {
    return this.productos[i % this.productos.length]!;
  }

  /** The (warehouse, product) the indices name; with `fromStock`, the b-th level holding units instead, when there is one. */
  nivel(b: number, p: number, fromStock: boolean): [number, number] {
    const llenos = [...this.model.niveles]
      .filter(([, n]) => n.cantidad > 0)
      .map(([k]) => k.split(':').map(Number) as [number, number]);
    return fromStock && llenos.length > 0 ? llenos[b % llenos.length]! : [this.bodega(b), this.producto(p)];
  }

  requestId(isKeyed: boolean): string | undefined {
    return isKeyed ? `${TAG}-r${this.id}-k${++this.keys}` : undefined;
  }

  async crearBodega(capacidad: number): Promise<void> {
    const res = await svc.rpc.createBodega(
      { nombre: `Prop ${TAG} r${this.id} b${this.bodegas.length}`, capacidad },
      USER,
    );
    this.bodegas.push(res.bodega!.id);
    this.model.agregarBodega(res.bodega!.id, capacidad);
  }

  /** The request a command makes, with every index resolved; undefined when it has nothing to act on. */
  request(
    cmd: Exclude<Command, { kind: 'crearBodega' | 'eliminarProducto' | 'repetir' }>,
  ): Request<unknown> | undefined {
    const m = this.model;
    switch (cmd.kind) {
      case 'asignar': {
        const [bodegaId, productoId] = [this.bodega(cmd.b), this.producto(cmd.p)];
        const req = {
          bodegaId,
          productoId,
          cantidad: cmd.cantidad,
          umbralMinimo: cmd.umbral ?? undefined,
          quitarUmbralMinimo: cmd.umbral === null ? true : undefined,
          requestId: this.requestId(cmd.keyed),
        };
        return typed<AsignarExistenciaResponse>({
          label: `asignar b${bodegaId} p${productoId} ${cmd.cantidad} umbral=${cmd.umbral === null ? 'quitar' : (cmd.umbral ?? '-')}`,
          send: () => svc.stock.asignarExistencia(req, USER),
          predict: () => m.asignar(bodegaId, productoId, cmd.cantidad, cmd.umbral),
          project: withOp((res) => ({
            cantidad: res.existencia!.cantidad,
            umbralMinimo: res.existencia!.umbralMinimo ?? null,
            version: res.existencia!.version,
          })),
          keyed: cmd.keyed,
        });
      }
      case 'entrada':
      case 'salida':
      case 'ajuste': {
        const [bodegaId, productoId] = this.nivel(cmd.b, cmd.p, 'fromStock' in cmd && cmd.fromStock);
        const tipo = cmd.kind === 'entrada' ? 'ENTRADA' : cmd.kind === 'salida' ? 'SALIDA' : 'AJUSTE';
        // A count is of the version the counter saw: the current one, or one a write has since passed.
        const actual = m.niveles.get(clave(bodegaId, productoId))?.version ?? 0;
        const expectedVersion = cmd.kind !== 'ajuste' ? undefined : 'stale' in cmd && cmd.stale ? actual + 1 : actual;
        const req = {
          bodegaId,
          productoId,
          tipo: TIPO_MOVIMIENTO_NAMES.value(tipo),
          cantidad: cmd.cantidad,
          motivo: 0,
          expectedVersion,
          requestId: this.requestId(cmd.keyed),
        };
        return typed<RegistrarMovimientoResponse>({
          label: `${tipo} b${bodegaId} p${productoId} ${cmd.cantidad}${expectedVersion === undefined ? '' : ` v${expectedVersion}`}`,
          send: () => svc.stock.registrarMovimiento(req, USER),
          predict: () => m.movimiento(tipo, bodegaId, productoId, cmd.cantidad, expectedVersion),
          project: withOp(),
          keyed: cmd.keyed,
        });
      }
      case 'transferir': {
        const [origenId, productoId] = this.nivel(cmd.o, cmd.p, cmd.fromStock);
        // Origin and destination differ (the same one is a validation error, tested elsewhere).
        const destinoId = origenId === this.bodega(cmd.d) ? this.bodega(cmd.d + 1) : this.bodega(cmd.d);
        if (origenId === destinoId) return undefined;
        const req = { productoId, origenId, destinoId, cantidad: cmd.cantidad, requestId: this.requestId(cmd.keyed) };
        return typed<TransferirResponse>({
          label: `transferir p${productoId} b${origenId}->b${destinoId} ${cmd.cantidad}`,
          send: () => svc.stock.transferir(req, USER),
          predict: () => m.transferir(productoId, origenId, destinoId, cmd.cantidad),
          project: withOp(),
          keyed: cmd.keyed,
        });
      }
      case 'revertir': {
        const ids = [...m.operaciones.keys()].sort((x, y) => x - y);
        if (ids.length === 0) return undefined;
        const operacionId = ids[cmd.op % ids.length]!;
        const req = { operacionId, requestId: this.requestId(cmd.keyed) };
        return typed<RevertirOperacionResponse>({
          label: `revertir ${operacionId} (${m.operaciones.get(operacionId)!.tipo})`,
          send: () => svc.stock.revertirOperacion(req, USER),
          predict: () => m.revertir(operacionId),
          project: withOp(),
          keyed: cmd.keyed,
        });
      }
      case 'capacidad': {
        const id = this.bodega(cmd.b);
        const req = {
          bodega: { id, version: 0, nombre: '', capacidad: cmd.capacidad },
          updateMask: ['capacidad'],
          requestId: this.requestId(cmd.keyed),
        };
        return typed<UpdateBodegaResponse>({
          label: `capacidad b${id} ${cmd.capacidad}`,
          send: () => svc.rpc.updateBodega(req, USER),
          predict: () => m.cambiarCapacidad(id, cmd.capacidad),
          project: (res) => ({ valor: { capacidad: res.bodega!.capacidad, ocupacion: res.bodega!.ocupacion ?? 0 } }),
          keyed: cmd.keyed,
        });
      }
      case 'retirar': {
        const [bodegaId, productoId] = [this.bodega(cmd.b), this.producto(cmd.p)];
        const req = { bodegaId, productoId, requestId: this.requestId(cmd.keyed) };
        return typed<RetirarExistenciaResponse>({
          label: `retirar b${bodegaId} p${productoId}`,
          send: () => svc.stock.retirarExistencia(req, USER),
          predict: () => m.retirar(bodegaId, productoId),
          project: withOp((res) => ({ existia: res.existia, cantidadRetirada: res.cantidadRetirada })),
          keyed: cmd.keyed,
        });
      }
      case 'eliminarBodega': {
        const id = this.bodega(cmd.b);
        const req = { id, retirarExistencias: cmd.retirar, requestId: this.requestId(cmd.keyed) };
        return typed<DeleteBodegaResponse>({
          label: `eliminarBodega b${id} retirar=${cmd.retirar}`,
          send: () => svc.rpc.deleteBodega(req, USER),
          predict: () => m.eliminarBodega(id, cmd.retirar),
          project: (res) => ({
            valor: { existenciasRetiradas: res.existenciasRetiradas, unidadesRetiradas: Number(res.unidadesRetiradas) },
          }),
          keyed: cmd.keyed,
        });
      }
    }
  }

  async step(cmd: Command): Promise<void> {
    steps += 1;
    if (cmd.kind === 'crearBodega') {
      await this.crearBodega(cmd.capacidad);
      this.log.push(`crearBodega ${cmd.capacidad} -> b${this.bodegas.at(-1)}`);
      count('crearBodega ok');
    } else if (cmd.kind === 'eliminarProducto') {
      const productoId = this.producto(cmd.p);
      for (let i = 0; i < (cmd.duplicado ? 2 : 1); i++) {
        const prediccion = this.model.eliminarProducto(productoId);
        await eliminarProducto(productoId);
        await this.compare(
          `eliminarProducto p${productoId}${i > 0 ? ' (again)' : ''}`,
          prediccion,
          { ok: true, res: null },
          () => ({ valor: null }),
        );
      }
    } else if (cmd.kind === 'repetir') {
      if (this.keyedSent.length === 0) return;
      const request = this.keyedSent[cmd.n % this.keyedSent.length]!;
      if (request.recorded !== undefined) {
        // The first succeeded: every repeat replays its answer and writes nothing.
        const got = await outcome(request.send());
        this.log.push(`repeat ${request.label}: ${got.ok ? 'ok' : JSON.stringify(got.rechazo)}`);
        if (!got.ok)
          throw new Error(
            `a repeat of ${request.label}, which succeeded, answered ${JSON.stringify(got.rechazo)} ${got.details}`,
          );
        expect(got.res).toEqual(request.recorded);
        expect(await this.newOperaciones()).toEqual([]);
        count('repeat replayed');
      } else {
        // The first was refused and recorded nothing: a repeat runs again, on today's state.
        await this.send(request, 'repeat ');
        count('repeat re-executed');
      }
    } else {
      const request = this.request(cmd);
      if (!request) return;
      if (request.keyed) this.keyedSent.push(request);
      await this.send(request, '');
    }
    await this.check();
  }

  async send(request: Request<unknown>, prefix: string): Promise<void> {
    const prediccion = request.predict();
    const got = await outcome(request.send());
    await this.compare(`${prefix}${request.label}`, prediccion, got, request.project);
    if (got.ok && request.keyed) request.recorded = got.res;
  }

  /** The answer and the operations written are the predicted ones; then the model takes the prediction. */
  async compare<R>(
    label: string,
    prediccion: Prediccion<unknown>,
    got: Outcome<R>,
    project: (res: R) => { valor: unknown; operacion?: OperacionModelo },
  ): Promise<void> {
    const kind = label.replace(/^repeat /, '').split(' ')[0];
    this.log.push(
      `${label}: ${got.ok ? 'ok' : JSON.stringify(got.rechazo)} (model: ${prediccion.ok ? 'ok' : JSON.stringify(prediccion.rechazo)})`,
    );
    if (!got.ok) {
      count(`${kind} ${got.rechazo.reason ?? got.rechazo.code}`);
      expect({ label, rechazo: got.rechazo }).toEqual({
        label,
        rechazo: prediccion.ok ? 'success' : prediccion.rechazo,
      });
      expect(await this.newOperaciones()).toEqual([]);
      return;
    }
    count(`${kind} ok`);
    if (!prediccion.ok) throw new Error(`${label} succeeded; the model expected ${JSON.stringify(prediccion.rechazo)}`);
    const answer = project(got.res);
    expect({ label, valor: answer.valor }).toEqual({ label, valor: prediccion.valor });
    if ('operacion' in answer)
      expect({ label, operacion: answer.operacion }).toEqual({ label, operacion: prediccion.operaciones[0] });
    const escritas = await this.newOperaciones();
    expect({ label, escritas: escritas.map((o) => comparable(o.op)) }).toEqual({
      label,
      escritas: prediccion.operaciones.map(comparable),
    });
    prediccion.aplicar(escritas.map((o) => o.id));
  }

  /** Operations committed since the last call, with their lines, read with SQL. */
  async newOperaciones(): Promise<{ id: number; op: OperacionModelo }[]> {
    const ops = (await svc.db('operaciones').where('id', '>', this.lastOperacion).orderBy('id')) as {
      id: number | string;
      tipo: OperacionModelo['tipo'];
      revierte_a: number | string | null;
    }[];
    const lineas = (await svc.db('movimientos').where('operacion_id', '>', this.lastOperacion).orderBy('id')) as {
      operacion_id: number | string;
      bodega_id: number;
      producto_id: number;
      tipo: LineaModelo['tipo'];
      motivo: LineaModelo['motivo'];
      cantidad: number;
      cantidad_anterior: number;
      cantidad_posterior: number;
      version: number;
    }[];
    if (ops.length > 0) this.lastOperacion = Number(ops.at(-1)!.id);
    return ops.map((o) => ({
      id: Number(o.id),
      op: {
        tipo: o.tipo,
        revierteA: o.revierte_a === null ? null : Number(o.revierte_a),
        lineas: lineas
          .filter((l) => Number(l.operacion_id) === Number(o.id))
          .map((l) => ({
            bodegaId: l.bodega_id,
            productoId: l.producto_id,
            tipo: l.tipo,
            motivo: l.motivo,
            cantidad: l.cantidad,
            cantidadAnterior: l.cantidad_anterior,
            cantidadPosterior: l.cantidad_posterior,
            version: l.version,
          })),
      },
    }));
  }

  /** The invariants in SQL, and the model equal to the database for this run's warehouses and products. */
  async check(): Promise<void> {
    expect(await ledgerProblems(svc.db)).toEqual([]);
    const bodegas = await svc
      .db('bodegas')
      .whereIn('id', this.bodegas)
      .orderBy('id')
      .select<{ id: number; capacidad: number; ocupacion: number | string }[]>(
        'id',
        'capacidad',
        ocupacionExacta(svc.db),
      );
    expect(new Map(bodegas.map((r) => [r.id, { capacidad: r.capacidad, ocupacion: Number(r.ocupacion) }]))).toEqual(
      this.model.bodegas,
    );
    const niveles = await svc
      .db('existencias')
      .whereIn('producto_id', this.productos)
      .select<
        { bodega_id: number; producto_id: number; cantidad: number; umbral_minimo: number | null; version: number }[]
      >('bodega_id', 'producto_id', 'cantidad', 'umbral_minimo', 'version');
    expect(
      new Map(
        niveles.map((r): [string, NivelModelo] => [
          clave(r.bodega_id, r.producto_id),
          { cantidad: r.cantidad, umbralMinimo: r.umbral_minimo, version: r.version },
        ]),
      ),
    ).toEqual(this.model.niveles);
    const versiones = await svc
      .db('movimientos')
      .whereIn('producto_id', this.productos)
      .groupBy('bodega_id', 'producto_id')
      .select<{ bodega_id: number; producto_id: number; version: number | string }[]>(
        'bodega_id',
        'producto_id',
        svc.db.raw('MAX(version) AS version'),
      );
    expect(new Map(versiones.map((r) => [clave(r.bodega_id, r.producto_id), Number(r.version)]))).toEqual(
      this.model.versiones,
    );
    const eliminados = (await svc
      .db('productos_eliminados')
      .whereIn('producto_id', this.productos)
      .pluck('producto_id')) as number[];
    expect(new Set(eliminados)).toEqual(this.model.eliminados);
  }
}

test(`${RUNS} random programs of stock commands: every answer and every line as the model predicts, the invariants after every step`, async () => {
  const started = Date.now();
  await fc.assert(
    fc.asyncProperty(program, async ({ capacidades, commands }) => {
      const run = new Run(++runs);
      try {
        for (const capacidad of capacidades) await run.crearBodega(capacidad);
        run.lastOperacion = Number((await svc.db('operaciones').max({ id: 'id' }).first())?.id ?? 0);
        for (const cmd of commands) await run.step(cmd);
        const verificacion = await svc.stock.verificarExistencias({});
        expect({ consistente: verificacion.consistente, diferencias: verificacion.diferencias }).toEqual({
          consistente: true,
          diferencias: [],
        });
      } catch (err) {
        throw new Error(
          `run ${run.id}, warehouses ${run.bodegas.join(',')}, products ${run.productos.join(',')}; steps:\n  ${run.log.join('\n  ')}\n${(err as Error).message}`,
          {
            cause: err,
          },
        );
      }
    }),
    { seed: SEED, numRuns: RUNS, endOnFailure: true },
  );
  expect(runs).toBe(RUNS);
  const summary = [...seen].sort(([x], [y]) => x.localeCompare(y)).map(([label, n]) => `${label}: ${n}`);
  process.stdout.write(
    `existencia-property: ${RUNS} runs, ${steps} steps in ${Date.now() - started} ms; ${summary.join(', ')}\n`,
  );
  // The programs reached every rule they are meant to exercise.
  for (const label of [
    'asignar ok',
    'asignar CAPACIDAD_EXCEDIDA',
    'SALIDA STOCK_INSUFICIENTE',
    'ENTRADA CAPACIDAD_EXCEDIDA',
    'AJUSTE VERSION_MISMATCH',
    'transferir ok',
    'transferir STOCK_INSUFICIENTE',
    'revertir ok',
    'revertir OPERACION_YA_REVERTIDA',
    'capacidad CAPACIDAD_INSUFICIENTE',
    'eliminarBodega ok',
    'eliminarProducto ok',
    'repeat replayed',
  ]) {
    expect({ label, seen: (seen.get(label) ?? 0) > 0 }).toEqual({ label, seen: true });
  }
  expect([...seen.keys()].some((k) => k.endsWith('PRODUCTO_ELIMINADO'))).toBe(true);
}, 300_000);
