/**
 * The audit trail on real MariaDB and NATS: one row per event whatever the
 * redeliveries, failed logins aggregated per address and window, paging and
 * filters, and a chain that names the row an UPDATE as root changed and
 * reports a tail deleted behind the last anchor.
 */
import { randomUUID } from 'node:crypto';
import { headers as natsHeaders } from '@nats-io/transport-node';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { TipoUsuario, type AutenticarResponse } from '@inventario/proto';
import { waitFor } from '@inventario/testkit';
import { AUDITORIA_CONSUMER } from '../src/events/auditoria-consumer';
import { AUDITORIA_SOLO_ANEXADO } from '../src/store/migrations';
import { como, startTestService, type TestService } from './support/test-service';

let svc: TestService;
let admin: AutenticarResponse;
// Longer than a burst of seven argon2 verifications takes on a loaded 2-core machine (a 1 s window was not).
const VENTANA_MS = 4000;

beforeAll(async () => {
  svc = await startTestService('audit', { AUTH_FALLOS_VENTANA_MS: String(VENTANA_MS) });
  admin = await svc.admin();
});

afterAll(async () => {
  await svc.close();
});

/** Publishes an envelope as its producer would; a distinct Nats-Msg-Id lets the stream keep a second copy (a re-publication past the window). */
async function publicar(subject: string, envelope: object): Promise<number> {
  const h = natsHeaders();
  h.set('Nats-Msg-Id', randomUUID());
  return (await jetstream(await svc.nats()).publish(subject, JSON.stringify(envelope), { headers: h })).seq;
}

async function consumerIdle(): Promise<void> {
  const jsm = await jetstreamManager(await svc.nats());
  await waitFor(async () => {
    const info = await jsm.consumers.info(svc.ns.stream, AUDITORIA_CONSUMER);
    return info.num_pending === 0 && info.num_ack_pending === 0;
  }, 'the audit consumer to take every message');
}

const filas = async (where: Record<string, unknown>) =>
  (await svc.db('auditoria').where(where)) as { seq: number; evento_id: string; datos: string; direccion: string }[];

describe('the audit projection', () => {
  it("keeps a token event's own tokenId apart from its author's token: by password the row names no token, through a token it names that one", async () => {
    const porPassword = await svc.rpc.createToken(
      { usuarioId: 0, nombre: 'autor-password', permisos: [] },
      como(admin),
    );
    const secreto = (await svc.rpc.createToken({ usuarioId: 0, nombre: 'autor-token', permisos: [] }, como(admin)))
      .secreto;
    const sesionToken = await svc.rpc.autenticar({ bearer: secreto, direccion: '127.0.0.1' });
    const porToken = await svc.rpc.createToken(
      { usuarioId: 0, nombre: 'hecho-con-token', permisos: [] },
      como(sesionToken),
    );
    const fila = async (id: number) =>
      (await svc
        .db('auditoria')
        .where({ recurso: `/tokens/${id}`, accion: 'TokenCreado' })
        .first()) as {
        principal_id: number;
        token_id: number | null;
        datos: string;
      };
    const a = await fila(porPassword.token!.id);
    expect({ principal: a.principal_id, token: a.token_id }).toEqual({ principal: admin.principal!.id, token: null });
    expect(JSON.parse(a.datos)).toMatchObject({ tokenId: porPassword.token!.id });
    expect(JSON.parse(a.datos)).not.toHaveProperty('autorTokenId');
    const b = await fila(porToken.token!.id);
    const autorToken = sesionToken.principal!.tokenId;
    expect({ principal: b.principal_id, token: b.token_id }).toEqual({
      principal: admin.principal!.id,
      token: autorToken,
    });
    expect(JSON.parse(b.datos)).toMatchObject({ tokenId: porToken.token!.id, autorTokenId: autorToken });
  });

  it("writes one row per event, however often the stream delivers it, with the producer's author", async () => {
    const envelope = {
      id: randomUUID(),
      eventType: 'Service.Inventario.ProductoCreado',
      subject: '/productos/41',
      eventTime: '2026-03-01T10:00:00',
      dataVersion: '1.0',
      source: 'producto-svc',
      data: { productoId: 41, nombre: 'Tornillo', usuario: 'ana', accion: 'CREAR', operacion: 'CREATE', version: 1 },
    };
    for (let i = 0; i < 3; i++) await publicar(`${svc.ns.prefix}.producto.creado`, envelope);
    await consumerIdle();
    const rows = await filas({ evento_id: envelope.id });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ accion: 'ProductoCreado', recurso: '/productos/41', usuario: 'ana' });
  });

  it('writes a burst of events in the order the stream holds them, chained as one at a time would', async () => {
    const ids = Array.from({ length: 30 }, () => randomUUID());
    // Published at once, so the consumer finds them queued together and writes them in batches.
    const enStream = await Promise.all(
      ids.map(async (id, i) => ({
        id,
        seq: await publicar(`${svc.ns.prefix}.producto.creado`, {
          id,
          eventType: 'Service.Inventario.ProductoCreado',
          subject: `/productos/${500 + i}`,
          eventTime: '2026-03-01T10:00:00',
          dataVersion: '1.0',
          source: 'producto-svc',
          data: { productoId: 500 + i, nombre: 'Arandela', usuario: 'ana', accion: 'CREAR', operacion: 'CREATE' },
        }),
      })),
    );
    await consumerIdle();
    const rows = (await svc.db('auditoria').whereIn('evento_id', ids).orderBy('seq')) as { evento_id: string }[];
    expect(rows.map((r) => r.evento_id)).toEqual(enStream.sort((a, b) => a.seq - b.seq).map((e) => e.id));
    expect((await svc.rpc.verificarAuditoria({}, como(admin))).consistente).toBe(true);
  });

  it('refuses an event whose source is not its type’s producer (a forged BodegaEliminada): no row', async () => {
    const id = randomUUID();
    await publicar(`${svc.ns.prefix}.bodega.eliminada`, {
      id,
      eventType: 'Service.Inventario.BodegaEliminada',
      subject: '/bodegas/3',
      eventTime: '2026-03-01T10:00:00',
      dataVersion: '1.0',
      source: 'producto-svc',
      data: { id: 3, usuario: 'mallory' },
    });
    await consumerIdle();
    expect(await filas({ evento_id: id })).toHaveLength(0);
  });

  it("writes identidad-svc's own actions once, though their events also come back through the stream", async () => {
    const u = (
      await svc.rpc.createUsuario(
        { usuario: 'auditada', password: 'clave-de-prueba-1', tipo: TipoUsuario.TIPO_USUARIO_HUMANO, asignaciones: [] },
        como(admin),
      )
    ).usuario!;
    await svc.publishedEvents();
    await consumerIdle();
    const rows = await filas({ accion: 'UsuarioCreado', recurso: `/usuarios/${u.id}` });
    expect(rows).toHaveLength(1);
  });

  it('aggregates failed logins into one row per address and window', async () => {
    // Start at a window's beginning so the burst stays inside one window.
    await new Promise((r) => setTimeout(r, VENTANA_MS - (Date.now() % VENTANA_MS) + 20));
    await Promise.all(Array.from({ length: 7 }, () => svc.login('admin', 'mal', '10.9.9.9').catch(() => undefined)));
    await new Promise((r) => setTimeout(r, VENTANA_MS + 50));
    await svc.app.tareas.cerrarFallos();
    await svc.app.tareas.cerrarFallos();
    const rows = await filas({ accion: 'AutenticacionFallida', direccion: '10.9.9.9' });
    // Started at a window's beginning, the burst fits in one window; should it still overrun, the second
    // window gets the rest: never a row per attempt, never an attempt lost or counted twice.
    expect(rows.length).toBeGreaterThanOrEqual(1);
    expect(rows.length).toBeLessThanOrEqual(2);
    expect(new Set(rows.map((r) => r.evento_id)).size).toBe(rows.length);
    expect(rows.reduce((n, r) => n + (JSON.parse(r.datos) as { intentos: number }).intentos, 0)).toBe(7);
  });

  it('pages newest first and filters by action and principal', async () => {
    const md = como(admin);
    const page1 = await svc.rpc.listAuditoria({ accion: '', pageSize: 2, pageToken: '' }, md);
    expect(page1.registros).toHaveLength(2);
    expect(page1.registros[0]!.seq).toBeGreaterThan(page1.registros[1]!.seq);
    const page2 = await svc.rpc.listAuditoria({ accion: '', pageSize: 2, pageToken: page1.nextPageToken }, md);
    expect(page2.registros[0]!.seq).toBeLessThan(page1.registros[1]!.seq);
    const mine = await svc.rpc.listAuditoria(
      { principalId: admin.principal!.id, accion: 'UsuarioCreado', pageSize: 100, pageToken: '' },
      md,
    );
    expect(mine.registros.length).toBeGreaterThan(0);
    expect(mine.registros.every((r) => r.principalId === admin.principal!.id && r.accion === 'UsuarioCreado')).toBe(
      true,
    );
  });
});

describe('the hash chain', () => {
  it('verifies, and holds the anchor published to the stream', async () => {
    const cabeza = await svc.app.tareas.anclar();
    expect(cabeza).toBeDefined();
    await svc.publishedEvents();
    const v = await svc.rpc.verificarAuditoria({}, como(admin));
    expect(v).toMatchObject({ consistente: true, anclaSeq: cabeza!.seq, anclaHash: cabeza!.hash });
    expect(v.filas).toBeGreaterThanOrEqual(cabeza!.seq);
  });

  it('refuses UPDATE and DELETE, root included', async () => {
    await expect(svc.db.raw("UPDATE auditoria SET usuario = 'x' WHERE seq = 1")).rejects.toThrow(
      AUDITORIA_SOLO_ANEXADO,
    );
    await expect(svc.db.raw('DELETE FROM auditoria WHERE seq = 1')).rejects.toThrow(AUDITORIA_SOLO_ANEXADO);
  });

  it('reports a tail deleted by root behind the last anchor', async () => {
    const cabeza = await svc.app.tareas.anclar();
    const ancla = cabeza ?? { seq: Number(((await svc.db('auditoria_cabeza').first()) as { seq: number }).seq) };
    await svc.publishedEvents();
    await svc.db.raw('DROP TRIGGER auditoria_sin_delete');
    await svc.db.raw('DELETE FROM auditoria WHERE seq > ?', [ancla.seq - 2]);
    const v = await svc.rpc.verificarAuditoria({}, como(admin));
    expect(v.consistente).toBe(false);
    expect(v.primeraRota).toBe(ancla.seq - 1);
    expect(v.motivo).toContain('antes del ancla');
  });

  it('names exactly the row an UPDATE done as root changed', async () => {
    await svc.db.raw('DROP TRIGGER auditoria_sin_update');
    // A row the truncation above left: the chain walk meets it before the missing tail.
    const target = 2;
    await svc.db.raw("UPDATE auditoria SET usuario = 'otro' WHERE seq = ?", [target]);
    const v = await svc.rpc.verificarAuditoria({}, como(admin));
    expect(v).toMatchObject({ consistente: false, primeraRota: target });
    expect(v.motivo).toContain('hash');
  });
});
