/**
 * Component tests: the whole service on an ephemeral port, called through the
 * generated client, asserting responses and status codes.
 */
import { status } from '@grpc/grpc-js';
import { fieldViolationsOf } from '@inventario/platform';
import { grpcError, startTestService, type TestService } from './support/test-service';

let svc: TestService;

beforeAll(async () => {
  svc = await startTestService('bodega_rpc');
});

afterAll(async () => {
  await svc?.close();
});

let seq = 0;
/** A name no other test in this file uses. */
function nombreUnico(base: string): string {
  seq += 1;
  return `${base} ${seq}`;
}

async function crear(nombre = nombreUnico('Bodega'), capacidad = 100, ubicacion?: string) {
  const res = await svc.rpc.createBodega({ nombre, capacidad, ubicacion });
  if (!res.bodega) throw new Error('CreateBodega answered without a bodega');
  return res.bodega;
}

async function bodegasCount(): Promise<number> {
  const row = await svc.db('bodegas').count<{ n: number | string }[]>({ n: '*' }).first();
  return Number(row?.n ?? 0);
}

/** What the database and outbox hold, to show a rejected call wrote nothing. */
async function snapshot() {
  return { bodegas: await svc.db('bodegas').orderBy('id').select(), outbox: await svc.outboxCount() };
}

describe('CreateBodega', () => {
  it('creates a warehouse and returns it with its id and equal creation and update times', async () => {
    const nombre = nombreUnico('Bodega Central');
    const bodega = await crear(nombre, 1500, 'Bogotá, Cra 7');

    expect(bodega).toMatchObject({ nombre, ubicacion: 'Bogotá, Cra 7', capacidad: 1500 });
    expect(bodega.id).toBeGreaterThan(0);
    expect(bodega.fechaCreacion).toBeInstanceOf(Date);
    expect(bodega.fechaCreacion?.getUTCMilliseconds()).toBe(0);
    expect(bodega.fechaActualizacion).toEqual(bodega.fechaCreacion);
  });

  it('creates a warehouse without ubicacion, which reads back as absent', async () => {
    const bodega = await crear(nombreUnico('Sin ubicación'), 0);
    expect(bodega.ubicacion).toBeUndefined();
    const row = await svc.db('bodegas').where({ id: bodega.id }).first();
    expect(row.ubicacion).toBeNull();
  });

  it('answers INVALID_ARGUMENT naming every bad field, and writes nothing', async () => {
    const before = await snapshot();
    const err = await grpcError(svc.rpc.createBodega({ nombre: '   ', ubicacion: 'x'.repeat(256) }));

    expect(err.code).toBe(status.INVALID_ARGUMENT);
    expect(fieldViolationsOf(err)).toEqual([
      { campo: 'nombre', mensaje: 'no puede estar en blanco' },
      { campo: 'ubicacion', mensaje: 'no puede superar 255 caracteres' },
      { campo: 'capacidad', mensaje: 'es obligatorio' },
    ]);
    expect(await snapshot()).toEqual(before);
  });

  it('answers INVALID_ARGUMENT for a negative capacidad', async () => {
    const err = await grpcError(svc.rpc.createBodega({ nombre: nombreUnico('Negativa'), capacidad: -1 }));
    expect(err.code).toBe(status.INVALID_ARGUMENT);
    expect(fieldViolationsOf(err)).toEqual([{ campo: 'capacidad', mensaje: 'debe ser mayor o igual que 0' }]);
  });

  it('answers ALREADY_EXISTS for a name taken in another case, naming it, and writes nothing', async () => {
    const existente = await crear(nombreUnico('Almacén Norte'));
    const before = await snapshot();

    const err = await grpcError(svc.rpc.createBodega({ nombre: existente.nombre.toUpperCase(), capacidad: 1 }));

    expect(err.code).toBe(status.ALREADY_EXISTS);
    expect(err.details).toContain(existente.nombre.toUpperCase());
    expect(err.details).not.toMatch(/ER_DUP|Duplicate entry|insert into/i);
    expect(await snapshot()).toEqual(before);
  });

  it('tells apart names that differ only in an emoji', async () => {
    const base = nombreUnico('Bodega');
    const manzana = await crear(`${base} 🍎`);
    const platano = await crear(`${base} 🍌`);
    expect(platano.id).not.toBe(manzana.id);
    expect(platano.nombre).toBe(`${base} 🍌`);
  });
});

describe('GetBodega', () => {
  it('returns the stored warehouse', async () => {
    const creada = await crear(nombreUnico('Leída'), 42, 'Quito');
    const res = await svc.rpc.getBodega({ id: creada.id });
    expect(res.bodega).toEqual(creada);
  });

  it('answers NOT_FOUND for an unknown id', async () => {
    const err = await grpcError(svc.rpc.getBodega({ id: 987_654 }));
    expect(err.code).toBe(status.NOT_FOUND);
    expect(err.details).toContain('987654');
  });

  // Ids are uint32 on the wire, so 0 (what proto3 sends for a forgotten id) is the only invalid one.
  it('answers INVALID_ARGUMENT naming id for id 0', async () => {
    const err = await grpcError(svc.rpc.getBodega({ id: 0 }));
    expect(err.code).toBe(status.INVALID_ARGUMENT);
    expect(fieldViolationsOf(err).map((v) => v.campo)).toEqual(['id']);
  });
});

describe('UpdateBodega', () => {
  it('changes only the fields in the mask and keeps the others', async () => {
    const creada = await crear(nombreUnico('Parcial'), 10, 'Lima');

    const res = await svc.rpc.updateBodega({
      bodega: { version: 0, id: creada.id, nombre: 'ignored because not in the mask', capacidad: 99 },
      updateMask: ['capacidad'],
    });

    expect(res.bodega).toMatchObject({ id: creada.id, nombre: creada.nombre, ubicacion: 'Lima', capacidad: 99 });
    expect(res.bodega?.fechaCreacion).toEqual(creada.fechaCreacion);
    expect(res.bodega?.fechaActualizacion?.getTime()).toBeGreaterThanOrEqual(creada.fechaCreacion?.getTime() ?? 0);
    expect((await svc.rpc.getBodega({ id: creada.id })).bodega).toEqual(res.bodega);
  });

  it('changes several fields named in the mask', async () => {
    const creada = await crear(nombreUnico('Varios'), 10);
    const nombre = nombreUnico('Renombrada');
    const res = await svc.rpc.updateBodega({
      bodega: { version: 0, id: creada.id, nombre, ubicacion: 'Cali', capacidad: 20 },
      updateMask: ['nombre', 'ubicacion', 'capacidad'],
    });
    expect(res.bodega).toMatchObject({ nombre, ubicacion: 'Cali', capacidad: 20 });
  });

  it('ignores output-only mask paths and accepts camelCase ones', async () => {
    const creada = await crear(nombreUnico('Rutas'), 10, 'Quito');
    const res = await svc.rpc.updateBodega({
      bodega: { version: 0, id: creada.id, nombre: '', capacidad: 30 },
      updateMask: ['id', 'fecha_creacion', 'capacidad', 'fechaActualizacion'],
    });
    expect(res.bodega).toMatchObject({ id: creada.id, nombre: creada.nombre, ubicacion: 'Quito', capacidad: 30 });
    expect(res.bodega?.fechaCreacion).toEqual(creada.fechaCreacion);
  });

  it('clears ubicacion when the mask names it and the message leaves it unset', async () => {
    const creada = await crear(nombreUnico('Con ubicación'), 5, 'Medellín');

    const res = await svc.rpc.updateBodega({
      bodega: { version: 0, id: creada.id, nombre: '', capacidad: 0 },
      updateMask: ['ubicacion'],
    });

    expect(res.bodega).toMatchObject({ nombre: creada.nombre, capacidad: 5 });
    expect(res.bodega?.ubicacion).toBeUndefined();
    expect((await svc.db('bodegas').where({ id: creada.id }).first()).ubicacion).toBeNull();
  });

  it('lets a warehouse change the case of its own name', async () => {
    const creada = await crear(nombreUnico('mayúsculas'));
    const res = await svc.rpc.updateBodega({
      bodega: { version: 0, id: creada.id, nombre: creada.nombre.toUpperCase(), capacidad: 0 },
      updateMask: ['nombre'],
    });
    expect(res.bodega?.nombre).toBe(creada.nombre.toUpperCase());
  });

  it('answers ALREADY_EXISTS when renaming to another warehouse name, and writes nothing', async () => {
    const primera = await crear(nombreUnico('Primera'));
    const segunda = await crear(nombreUnico('Segunda'));
    const before = await snapshot();

    const err = await grpcError(
      svc.rpc.updateBodega({
        bodega: { version: 0, id: segunda.id, nombre: primera.nombre, capacidad: 0 },
        updateMask: ['nombre'],
      }),
    );

    expect(err.code).toBe(status.ALREADY_EXISTS);
    expect(err.details).toContain(primera.nombre);
    expect(err.details).not.toMatch(/ER_DUP|Duplicate entry|update `bodegas`/i);
    expect(await snapshot()).toEqual(before);
  });

  it('answers NOT_FOUND for an unknown id', async () => {
    const err = await grpcError(
      svc.rpc.updateBodega({
        bodega: { version: 0, id: 876_543, nombre: 'x', capacidad: 1 },
        updateMask: ['capacidad'],
      }),
    );
    expect(err.code).toBe(status.NOT_FOUND);
  });

  it.each<[string, Parameters<TestService['rpc']['updateBodega']>[0], string[]]>([
    ['without a bodega', { updateMask: ['nombre'] }, ['bodega']],
    ['with id 0', { bodega: { version: 0, id: 0, nombre: 'x', capacidad: 1 }, updateMask: ['nombre'] }, ['id']],
    [
      'with an empty mask',
      { bodega: { version: 0, id: 1, nombre: 'x', capacidad: 1 }, updateMask: [] },
      ['updateMask'],
    ],
    ['without a mask', { bodega: { version: 0, id: 1, nombre: 'x', capacidad: 1 } }, ['updateMask']],
    [
      'with an unknown mask path',
      { bodega: { version: 0, id: 1, nombre: 'x', capacidad: 1 }, updateMask: ['capacidad', 'color'] },
      ['updateMask'],
    ],
    [
      'with only output-only mask paths',
      {
        bodega: { version: 0, id: 1, nombre: 'x', capacidad: 1 },
        updateMask: ['fecha_creacion', 'fechaActualizacion'],
      },
      ['updateMask'],
    ],
  ])('answers INVALID_ARGUMENT %s', async (_name, request, campos) => {
    const err = await grpcError(svc.rpc.updateBodega(request));
    expect(err.code).toBe(status.INVALID_ARGUMENT);
    expect(fieldViolationsOf(err).map((v) => v.campo)).toEqual(campos);
  });

  it('answers INVALID_ARGUMENT for an invalid masked value, and writes nothing', async () => {
    const creada = await crear(nombreUnico('Valores'));
    const before = await snapshot();
    const err = await grpcError(
      svc.rpc.updateBodega({
        bodega: { version: 0, id: creada.id, nombre: ' ', capacidad: -2 },
        updateMask: ['nombre', 'capacidad'],
      }),
    );
    expect(err.code).toBe(status.INVALID_ARGUMENT);
    expect(fieldViolationsOf(err).map((v) => v.campo)).toEqual(['nombre', 'capacidad']);
    expect(await snapshot()).toEqual(before);
  });
});

describe('DeleteBodega', () => {
  it('deletes the warehouse, after which it is NOT_FOUND', async () => {
    const creada = await crear(nombreUnico('Borrada'));
    const count = await bodegasCount();

    await expect(svc.rpc.deleteBodega({ id: creada.id })).resolves.toEqual({
      existenciasRetiradas: 0,
      unidadesRetiradas: 0,
      pendiente: false,
      productosDesasignados: [],
      totalDesasignados: 0,
    });

    expect(await bodegasCount()).toBe(count - 1);
    expect((await grpcError(svc.rpc.getBodega({ id: creada.id }))).code).toBe(status.NOT_FOUND);
    expect((await grpcError(svc.rpc.deleteBodega({ id: creada.id }))).code).toBe(status.NOT_FOUND);
  });

  it('frees the name of a deleted warehouse for reuse', async () => {
    const creada = await crear(nombreUnico('Reutilizable'));
    await svc.rpc.deleteBodega({ id: creada.id });
    await expect(crear(creada.nombre)).resolves.toMatchObject({ nombre: creada.nombre });
  });

  it('answers INVALID_ARGUMENT naming id for id 0', async () => {
    const err = await grpcError(svc.rpc.deleteBodega({ id: 0 }));
    expect(err.code).toBe(status.INVALID_ARGUMENT);
    expect(fieldViolationsOf(err).map((v) => v.campo)).toEqual(['id']);
  });
});
