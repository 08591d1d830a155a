/**
 * One answer to "how many" (docs/contract.md §10.6): a product's figure is
 * its ledger total, its initial stock and its counts are ledger lines, and
 * units with no warehouse (or no room in it) live in the product's unlocated
 * level (bodega_id 0), which is no warehouse and fills none. Checked through
 * the RPCs and in SQL.
 */
import { errorReasonOf } from '@inventario/platform';
import {
  MOTIVO_MOVIMIENTO_NAMES,
  TIPO_MOVIMIENTO_NAMES,
  TIPO_OPERACION_NAMES,
  type Operacion,
} from '@inventario/proto';
import { productoEliminadoDe } from './support/producto-eliminado';
import { ledgerProblems } from '@inventario/testkit';
import { asUser, grpcError, startTestService, type TestService } from './support/test-service';

const ANA = asUser('ana');
const STOCK_INICIAL = MOTIVO_MOVIMIENTO_NAMES.value('STOCK_INICIAL');
const MIGRACION = MOTIVO_MOVIMIENTO_NAMES.value('MIGRACION');

let svc: TestService;
let eliminarProducto: (productoId: number) => Promise<void>;

beforeAll(async () => {
  svc = await startTestService('bodega_una_respuesta');
  eliminarProducto = productoEliminadoDe(svc);
});

afterAll(async () => {
  await svc?.close();
});

afterEach(async () => {
  expect(await ledgerProblems(svc.db)).toEqual([]);
});

let seq = 0;
async function bodega(capacidad: number): Promise<number> {
  seq += 1;
  return (await svc.rpc.createBodega({ nombre: `Una respuesta ${seq}`, capacidad })).bodega!.id;
}

function producto(): number {
  seq += 1;
  return 5000 + seq;
}

/** The product's levels in SQL, by warehouse id (0: unlocated). */
async function niveles(productoId: number): Promise<Record<number, number>> {
  const rows = await svc
    .db('existencias')
    .where({ producto_id: productoId })
    .select<{ bodega_id: number; cantidad: number }[]>('bodega_id', 'cantidad');
  return Object.fromEntries(rows.map((r) => [r.bodega_id, r.cantidad]));
}

async function total(productoId: number): Promise<number> {
  const { totales } = await svc.stock.getTotalesDeProductos({ productoIds: [productoId] });
  return Number(totales[0]!.total);
}

const lineas = (op: Operacion | undefined) =>
  (op?.movimientos ?? []).map((m) => ({
    bodegaId: m.bodegaId,
    tipo: TIPO_MOVIMIENTO_NAMES.name(m.tipo),
    motivo: MOTIVO_MOVIMIENTO_NAMES.name(m.motivo),
    cantidad: m.cantidad,
  }));

describe('GetTotalesDeProductos', () => {
  it('sums every level of each product asked, unlocated included, 0 for a product with none, in the order asked', async () => {
    const b = await bodega(100);
    const [p, q, nadie] = [producto(), producto(), producto()];
    await svc.stock.asignarExistencia({ bodegaId: b, productoId: p, cantidad: 7 }, ANA);
    await svc.stock.registrarStockInicial({ productoId: p, cantidad: 5, motivo: STOCK_INICIAL }, ANA);
    await svc.stock.asignarExistencia({ bodegaId: b, productoId: q, cantidad: 2 }, ANA);
    const { totales } = await svc.stock.getTotalesDeProductos({ productoIds: [nadie, q, p] });
    expect(
      totales.map((t) => ({ productoId: t.productoId, total: Number(t.total), sinUbicar: Number(t.sinUbicar) })),
    ).toEqual([
      { productoId: nadie, total: 0, sinUbicar: 0 },
      { productoId: q, total: 2, sinUbicar: 0 },
      { productoId: p, total: 12, sinUbicar: 5 },
    ]);
  });
});

describe('RegistrarStockInicial', () => {
  it('puts the units in the product warehouse as far as they fit and the rest unlocated, without passing its capacity', async () => {
    const b = await bodega(10);
    const otro = producto();
    await svc.stock.asignarExistencia({ bodegaId: b, productoId: otro, cantidad: 4 }, ANA);
    const p = producto();
    const { operacion } = await svc.stock.registrarStockInicial(
      { productoId: p, bodegaId: b, cantidad: 9, motivo: STOCK_INICIAL },
      ANA,
    );
    expect(TIPO_OPERACION_NAMES.name(operacion!.tipo)).toBe('ENTRADA');
    expect(lineas(operacion)).toEqual([
      { bodegaId: b, tipo: 'ENTRADA', motivo: 'STOCK_INICIAL', cantidad: 6 },
      { bodegaId: 0, tipo: 'ENTRADA', motivo: 'STOCK_INICIAL', cantidad: 3 },
    ]);
    expect(await niveles(p)).toEqual({ [b]: 6, 0: 3 });
    expect((await svc.rpc.getBodega({ id: b })).bodega!.ocupacion).toBe(10);
    expect(await total(p)).toBe(9);
  });

  it('without a warehouse, or naming one deleted meanwhile, keeps every unit unlocated', async () => {
    const p = producto();
    await svc.stock.registrarStockInicial({ productoId: p, cantidad: 4, motivo: STOCK_INICIAL }, ANA);
    expect(await niveles(p)).toEqual({ 0: 4 });
    const q = producto();
    await svc.stock.registrarStockInicial(
      { productoId: q, bodegaId: 999_999, cantidad: 2, motivo: STOCK_INICIAL },
      ANA,
    );
    expect(await niveles(q)).toEqual({ 0: 2 });
  });

  it("answers the product's ledger total only when these are its first units (issue 23): none for a repeat, none for a product with lines", async () => {
    const b = await bodega(10);
    const p = producto();
    // 9 units, 6 fit: the total still counts the unlocated 3.
    await svc.stock.asignarExistencia({ bodegaId: b, productoId: producto(), cantidad: 4 }, ANA);
    const first = await svc.stock.registrarStockInicial(
      { productoId: p, bodegaId: b, cantidad: 9, motivo: STOCK_INICIAL },
      ANA,
    );
    expect(Number(first.total)).toBe(9);
    expect(await total(p)).toBe(9);
    const again = await svc.stock.registrarStockInicial(
      { productoId: p, bodegaId: b, cantidad: 9, motivo: STOCK_INICIAL },
      ANA,
    );
    expect(again.operacion!.id).toBe(first.operacion!.id);
    expect(again.total).toBeUndefined();
    // A product that already moved (here an assignment) gets its units recorded, but no total: a level
    // of it elsewhere could change meanwhile, and the caller asks GetTotalesDeProductos.
    const q = producto();
    const otra = await bodega(100);
    await svc.stock.asignarExistencia({ bodegaId: otra, productoId: q, cantidad: 3 }, ANA);
    const conLineas = await svc.stock.registrarStockInicial(
      { productoId: q, bodegaId: otra, cantidad: 2, motivo: STOCK_INICIAL },
      ANA,
    );
    expect(conLineas.operacion).toBeDefined();
    expect(conLineas.total).toBeUndefined();
    expect(await total(q)).toBe(5);
  });

  it('an entry with room under the stored occupancy leaves the exits of the warehouse in their stripes; one that needs the exact room folds them', async () => {
    const b = await bodega(10);
    const [p, q] = [producto(), producto()];
    await svc.stock.asignarExistencia({ bodegaId: b, productoId: p, cantidad: 8 }, ANA);
    await svc.stock.registrarMovimiento(
      { bodegaId: b, productoId: p, tipo: TIPO_MOVIMIENTO_NAMES.value('SALIDA'), cantidad: 5, motivo: 0 },
      ANA,
    );
    const enTramos = async () =>
      Number(
        (await svc.db('bodega_salidas').where({ bodega_id: b }).sum<{ n: number | string }[]>({ n: 'unidades' }))[0]!.n,
      );
    const columna = async () =>
      Number((await svc.db('bodegas').where({ id: b }).first<{ ocupacion: number | string }>('ocupacion')).ocupacion);
    // Stored 8, exact 3: 2 more fit under the stored figure, no fold.
    await svc.stock.registrarMovimiento(
      { bodegaId: b, productoId: q, tipo: TIPO_MOVIMIENTO_NAMES.value('ENTRADA'), cantidad: 2, motivo: 0 },
      ANA,
    );
    expect([await columna(), await enTramos()]).toEqual([10, 5]);
    expect((await svc.rpc.getBodega({ id: b })).bodega!.ocupacion).toBe(5);
    // 4 more fit only in the exact room (5 free): folded, accepted, exact.
    await svc.stock.registrarMovimiento(
      { bodegaId: b, productoId: q, tipo: TIPO_MOVIMIENTO_NAMES.value('ENTRADA'), cantidad: 4, motivo: 0 },
      ANA,
    );
    expect([await columna(), await enTramos()]).toEqual([9, 0]);
    expect((await svc.rpc.getBodega({ id: b })).bodega!.ocupacion).toBe(9);
  });

  it('records once per product, whatever the key: a second call answers the first operation and writes nothing', async () => {
    const b = await bodega(100);
    const p = producto();
    const first = await svc.stock.registrarStockInicial(
      { productoId: p, bodegaId: b, cantidad: 5, motivo: STOCK_INICIAL, requestId: 'alta-1' },
      ANA,
    );
    const lines = await svc.db('movimientos').count<{ n: number }[]>({ n: '*' });
    const again = await svc.stock.registrarStockInicial(
      { productoId: p, bodegaId: b, cantidad: 5, motivo: STOCK_INICIAL, requestId: 'otra-clave' },
      ANA,
    );
    expect(again.operacion!.id).toBe(first.operacion!.id);
    expect(await svc.db('movimientos').count<{ n: number }[]>({ n: '*' })).toEqual(lines);
    expect(await total(p)).toBe(5);
  });

  it('a migration records only what the levels do not explain, and nothing when they hold as much or more (the ledger wins)', async () => {
    const b = await bodega(100);
    const p = producto();
    await svc.stock.asignarExistencia({ bodegaId: b, productoId: p, cantidad: 30 }, ANA);
    const { operacion } = await svc.stock.registrarStockInicial(
      { productoId: p, bodegaId: b, cantidad: 35, motivo: MIGRACION },
      ANA,
    );
    expect(lineas(operacion)).toEqual([{ bodegaId: b, tipo: 'ENTRADA', motivo: 'MIGRACION', cantidad: 5 }]);
    expect(operacion!.comentario).toMatch(/migración/);
    const q = producto();
    await svc.stock.asignarExistencia({ bodegaId: b, productoId: q, cantidad: 36 }, ANA);
    expect(
      (await svc.stock.registrarStockInicial({ productoId: q, bodegaId: b, cantidad: 35, motivo: MIGRACION }, ANA))
        .operacion,
    ).toBeUndefined();
    expect(await total(q)).toBe(36);
    // Once: a second run records nothing, even with another figure.
    expect(
      (await svc.stock.registrarStockInicial({ productoId: p, bodegaId: b, cantidad: 80, motivo: MIGRACION }, ANA))
        .operacion!.id,
    ).toBe(operacion!.id);
    expect(await total(p)).toBe(35);
  });

  it('records nothing for a deleted product, and refuses a motivo that is not STOCK_INICIAL or MIGRACION', async () => {
    const p = producto();
    await eliminarProducto(p);
    expect(
      (await svc.stock.registrarStockInicial({ productoId: p, cantidad: 3, motivo: STOCK_INICIAL }, ANA)).operacion,
    ).toBeUndefined();
    expect(await niveles(p)).toEqual({});
    const err = await grpcError(
      svc.stock.registrarStockInicial(
        { productoId: producto(), cantidad: 3, motivo: MOTIVO_MOVIMIENTO_NAMES.value('RECEPCION') },
        ANA,
      ),
    );
    expect(err.details).toMatch(/motivo/);
  });
});

describe('ContarProducto', () => {
  it('more units go to the product warehouse while it has room, the rest unlocated', async () => {
    const b = await bodega(10);
    const p = producto();
    await svc.stock.asignarExistencia({ bodegaId: b, productoId: p, cantidad: 8 }, ANA);
    const { operacion, total: nuevo } = await svc.stock.contarProducto(
      { productoId: p, bodegaId: b, cantidad: 13 },
      ANA,
    );
    expect(Number(nuevo)).toBe(13);
    expect(TIPO_OPERACION_NAMES.name(operacion!.tipo)).toBe('AJUSTE');
    expect(lineas(operacion)).toEqual([
      { bodegaId: b, tipo: 'AJUSTE', motivo: 'CONTEO', cantidad: 2 },
      { bodegaId: 0, tipo: 'AJUSTE', motivo: 'CONTEO', cantidad: 3 },
    ]);
    expect(await niveles(p)).toEqual({ [b]: 10, 0: 3 });
  });

  it('fewer units come out of the product warehouse first, then unlocated, then other warehouses in id order', async () => {
    const [b, c, d] = [await bodega(100), await bodega(100), await bodega(100)];
    const p = producto();
    await svc.stock.asignarExistencia({ bodegaId: c, productoId: p, cantidad: 4 }, ANA);
    await svc.stock.asignarExistencia({ bodegaId: d, productoId: p, cantidad: 4 }, ANA);
    await svc.stock.asignarExistencia({ bodegaId: b, productoId: p, cantidad: 3 }, ANA);
    await svc.stock.registrarStockInicial({ productoId: p, cantidad: 2, motivo: STOCK_INICIAL }, ANA);
    const { operacion } = await svc.stock.contarProducto({ productoId: p, bodegaId: d, cantidad: 3 }, ANA);
    expect(lineas(operacion).map((l) => [l.bodegaId, l.cantidad])).toEqual([
      [d, -4],
      [0, -2],
      [b, -3],
      [c, -1],
    ]);
    expect(await total(p)).toBe(3);
  });

  it('writes no line when the total already is the count', async () => {
    const b = await bodega(100);
    const p = producto();
    await svc.stock.asignarExistencia({ bodegaId: b, productoId: p, cantidad: 6 }, ANA);
    const before = await svc.db('operaciones').count<{ n: number }[]>({ n: '*' });
    const res = await svc.stock.contarProducto({ productoId: p, bodegaId: b, cantidad: 6 }, ANA);
    expect(res.operacion).toBeUndefined();
    expect(await svc.db('operaciones').count<{ n: number }[]>({ n: '*' })).toEqual(before);
  });

  it('is refused for a deleted product (PRODUCTO_ELIMINADO), whose unlocated units were written out too', async () => {
    const p = producto();
    await svc.stock.registrarStockInicial({ productoId: p, cantidad: 3, motivo: STOCK_INICIAL }, ANA);
    await eliminarProducto(p);
    expect(await niveles(p)).toEqual({});
    expect(errorReasonOf(await grpcError(svc.stock.contarProducto({ productoId: p, cantidad: 5 }, ANA)))).toBe(
      'PRODUCTO_ELIMINADO',
    );
  });
});

it('the unlocated level is no warehouse: no bodegas row stands for it, and a stock command cannot name it', async () => {
  const p = producto();
  await svc.stock.registrarStockInicial({ productoId: p, cantidad: 3, motivo: STOCK_INICIAL }, ANA);
  const err = await grpcError(
    svc.stock.registrarMovimiento(
      { bodegaId: 0, productoId: p, tipo: TIPO_MOVIMIENTO_NAMES.value('SALIDA'), cantidad: 1, motivo: 0 },
      ANA,
    ),
  );
  expect(err.details).toMatch(/bodegaId/);
  const ids = await svc.db('bodegas').pluck('id');
  expect(ids).not.toContain(0);
});
