/**
 * The last active ADMIN is never lost, also when demotions and suspensions
 * of two admins race (20 concurrent calls on real MariaDB).
 */
import { status, type ServiceError } from '@grpc/grpc-js';
import { errorReasonOf } from '@inventario/platform';
import { TipoUsuario } from '@inventario/proto';
import { ADMIN_PASSWORD, como, startTestService, type TestService } from './support/test-service';

let svc: TestService;

beforeAll(async () => {
  svc = await startTestService('ultadm');
});

afterAll(async () => {
  await svc.close();
});

async function adminsActivos(): Promise<number[]> {
  const [rows] = (await svc.db.raw(
    `SELECT DISTINCT u.id FROM usuarios u JOIN asignaciones a ON a.usuario_id = u.id
     WHERE a.rol = 'ADMIN' AND a.bodega_id IS NULL AND u.estado = 'ACTIVO'`,
  )) as [{ id: number }[]];
  return rows.map((r) => r.id).sort();
}

describe('the last active ADMIN', () => {
  it('survives 20 concurrent demotions and suspensions split over two admins: one stays, every call against it gets ULTIMO_ADMIN', async () => {
    const admin = await svc.admin();
    const segundo = (
      await svc.rpc.createUsuario(
        {
          usuario: 'admin-2',
          password: 'segunda-clave-larga',
          tipo: TipoUsuario.TIPO_USUARIO_HUMANO,
          asignaciones: [{ rol: 'ADMIN' }],
        },
        como(admin),
      )
    ).usuario!;
    const ids = [admin.principal!.id, segundo.id];
    expect(await adminsActivos()).toEqual([...ids].sort());
    // Each admin acts through the other's session, so no caller's own credential change voids the next call.
    const sesion = { [ids[0]!]: await svc.login('admin-2', 'segunda-clave-larga'), [ids[1]!]: admin };

    const calls = Array.from({ length: 20 }, (_, i) => {
      const id = ids[i % 2]!;
      const md = como(sesion[id]!);
      const call =
        i % 4 < 2
          ? svc.rpc.suspenderUsuario({ id }, md)
          : svc.rpc.setAsignaciones({ id, asignaciones: [{ rol: 'LECTOR' }] }, md);
      return call.then(
        () => ({ id, ok: true as const }),
        (err: ServiceError) => ({ id, ok: false as const, code: err.code, reason: errorReasonOf(err) }),
      );
    });
    const outcomes = await Promise.all(calls);

    const left = await adminsActivos();
    expect(left).toHaveLength(1);
    const survivor = left[0]!;
    const refused = outcomes.filter((o) => !o.ok);
    // Whichever went first, every call that would have removed the survivor was refused with 409 ULTIMO_ADMIN…
    expect(outcomes.filter((o) => o.id === survivor).every((o) => !o.ok)).toBe(true);
    // …or, for calls by the admin who lost its rights meanwhile, UNAUTHENTICATED (its signed principal is void).
    for (const o of refused) {
      if (o.ok) continue;
      expect([status.FAILED_PRECONDITION, status.UNAUTHENTICATED]).toContain(o.code);
      if (o.code === status.FAILED_PRECONDITION) expect(o.reason).toBe('ULTIMO_ADMIN');
    }
    expect(refused.filter((o) => !o.ok && o.code === status.FAILED_PRECONDITION).length).toBeGreaterThan(0);
  });

  it('refuses deleting, suspending or demoting the only active ADMIN', async () => {
    const [only] = await adminsActivos();
    const nombre = ((await svc.db('usuarios').where({ id: only }).first()) as { usuario: string }).usuario;
    const sesion = await svc.login(nombre, nombre === 'admin' ? ADMIN_PASSWORD : 'segunda-clave-larga');
    for (const call of [
      () => svc.rpc.deleteUsuario({ id: only! }, como(sesion)),
      () => svc.rpc.suspenderUsuario({ id: only! }, como(sesion)),
      () => svc.rpc.setAsignaciones({ id: only!, asignaciones: [{ rol: 'ADMIN', bodegaId: 1 }] }, como(sesion)),
    ]) {
      const err = await call().then(
        () => undefined,
        (e: ServiceError) => e,
      );
      expect(err?.code).toBe(status.FAILED_PRECONDITION);
      expect(errorReasonOf(err!)).toBe('ULTIMO_ADMIN');
    }
    expect(await adminsActivos()).toEqual([only]);
  });
});
