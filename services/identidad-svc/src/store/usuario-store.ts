import { type Asignacion } from '@inventario/contract';
import {
  AlreadyExistsError,
  enqueueEvent,
  FailedPreconditionError,
  isDuplicateEntry,
  jsonResultCodec,
  NotFoundError,
  nowToSecond,
  VersionMismatchError,
  withDbErrors,
  writeTransaction,
  type CallContext,
  type Knex,
} from '@inventario/platform';
import { claveDeUsuario, esAdminActivo, ordenar, type EstadoUsuario, type Usuario } from '../domain/usuario';
import { hechoDeEvento, type SobreEvento } from '../events/hecho';
import type { Autor, CampoUsuario, IdentidadEvents, WriteContext } from '../events/identidad-events';
import type { TipoUsuario } from '@inventario/contract';
import { anexar } from './auditoria-store';
import { USUARIO_UNIQUE_INDEX } from './migrations';

/**
 * Users and their bindings (docs/contract.md §12.3). Every write commits
 * its event (outbox) and its audit row in one transaction, and every write
 * that could leave the system without an active ADMIN takes the
 * `guardia_admin` row lock first: such writes then run one at a time, each
 * seeing the one before it, so concurrent demotions cannot all pass.
 */

interface UsuarioRow {
  id: number;
  usuario: string;
  tipo: TipoUsuario;
  estado: EstadoUsuario;
  password_hash: string | null;
  credencial_version: number;
  version: number;
  fecha_creacion: Date;
  fecha_actualizacion: Date;
}

/** A user with the one column never shown: for the password check only. */
export interface UsuarioConHash extends Usuario {
  passwordHash: string | null;
}

export interface NuevoUsuario {
  usuario: string;
  tipo: TipoUsuario;
  passwordHash: string | null;
  asignaciones: Asignacion[];
}

export interface Escritura {
  caller: CallContext;
  autor: Autor;
  expectedVersion?: number;
}

export interface UsuarioStore {
  crear(nuevo: NuevoUsuario, w: Escritura): Promise<Usuario>;
  obtener(id: number): Promise<Usuario>;
  /** With the password hash; undefined when no user has that name (compared as claveDeUsuario). */
  paraAutenticar(usuario: string): Promise<UsuarioConHash | undefined>;
  obtenerConHash(id: number): Promise<UsuarioConHash>;
  listar(afterId: number | null, pageSize: number): Promise<{ usuarios: Usuario[]; hasMore: boolean }>;
  actualizar(id: number, cambios: { usuario?: string; estado?: EstadoUsuario }, w: Escritura): Promise<Usuario>;
  eliminar(id: number, w: Escritura): Promise<void>;
  cambiarPassword(id: number, passwordHash: string, w: Escritura): Promise<Usuario>;
  /** `autorizar` sees the bindings before the change (under the row lock) and throws to refuse. */
  setAsignaciones(
    id: number,
    asignaciones: Asignacion[],
    w: Escritura,
    autorizar: (antes: Asignacion[]) => void,
  ): Promise<Usuario>;
  /**
   * Stores a hash at today's parameters after a successful login: no new version, no event (nothing a client sees
   * changed).
   */
  rehash(id: number, anterior: string, passwordHash: string): Promise<void>;
  /** Whether any active user holds ADMIN on every warehouse. */
  hayAdminActivo(): Promise<boolean>;
  /**
   * The first ADMIN (BFF_USER): created, or restored as ADMIN when its name exists, only while no active ADMIN exists.
   */
  asegurarAdmin(usuario: string, passwordHash: () => Promise<string>): Promise<'creado' | 'restaurado' | 'existente'>;
}

export interface UsuarioStoreDeps {
  events: IdentidadEvents;
  onCommitted?: () => void;
  idempotencyTtlSeconds: number;
}

const RESULTS = jsonResultCodec(['fechaCreacion', 'fechaActualizacion']);

function notFound(id: number): NotFoundError {
  return new NotFoundError(`No existe el usuario con id ${id}`);
}

function duplicado(usuario: string): AlreadyExistsError {
  return new AlreadyExistsError(`Ya existe un usuario con el nombre '${usuario}'`);
}

function isDuplicateNombre(err: unknown): boolean {
  return isDuplicateEntry(err) && err instanceof Error && err.message.includes(USUARIO_UNIQUE_INDEX);
}

function requireVersion(actual: Usuario, expected: number | undefined): void {
  if (expected !== undefined && actual.version !== expected) throw VersionMismatchError.of(actual.version, expected);
}

const ultimoAdmin = () =>
  new FailedPreconditionError('la operación dejaría el sistema sin ningún ADMIN activo', {
    reason: 'ULTIMO_ADMIN',
    datos: { adminsActivos: 1 },
  });

async function asignacionesDe(q: Knex | Knex.Transaction, ids: number[]): Promise<Map<number, Asignacion[]>> {
  const out = new Map<number, Asignacion[]>(ids.map((id) => [id, []]));
  if (ids.length === 0) return out;
  const rows = await q<{ usuario_id: number; rol: Asignacion['rol']; bodega_id: number | null }>('asignaciones')
    .whereIn('usuario_id', ids)
    .select('usuario_id', 'rol', 'bodega_id');
  for (const row of rows) out.get(row.usuario_id)?.push({ rol: row.rol, bodegaId: row.bodega_id });
  for (const list of out.values()) ordenar(list);
  return out;
}

function toUsuario(row: UsuarioRow, asignaciones: Asignacion[]): UsuarioConHash {
  return {
    id: row.id,
    usuario: row.usuario,
    tipo: row.tipo,
    estado: row.estado,
    asignaciones,
    credencialVersion: row.credencial_version,
    version: row.version,
    fechaCreacion: row.fecha_creacion,
    fechaActualizacion: row.fecha_actualizacion,
    tienePassword: row.password_hash !== null,
    passwordHash: row.password_hash,
  };
}

/** The public form: never the hash. */
function publico({ passwordHash: _hash, ...usuario }: UsuarioConHash): Usuario {
  return usuario;
}

async function adminsActivosSalvo(trx: Knex.Transaction, id: number): Promise<number> {
  const [[row]] = (await trx.raw(
    `SELECT COUNT(DISTINCT u.id) AS n FROM usuarios u JOIN asignaciones a ON a.usuario_id = u.id
     WHERE a.rol = 'ADMIN' AND a.bodega_id IS NULL AND u.estado = 'ACTIVO' AND u.id <> ?`,
    [id],
  )) as [{ n: number | string }[]];
  return Number(row?.n ?? 0);
}

/** At a whole-second instant: the precision we store and publish. */
function write<T>(
  db: Knex,
  deps: UsuarioStoreDeps,
  w: Pick<Escritura, 'caller'>,
  work: (trx: Knex.Transaction, at: Date) => Promise<T>,
): Promise<T> {
  return writeTransaction(db, (trx) => work(trx, nowToSecond()), {
    onCommitted: deps.onCommitted,
    idempotency: { key: w.caller.idempotency, codec: RESULTS, ttlSeconds: deps.idempotencyTtlSeconds },
    signal: w.caller.signal,
  });
}

async function locked(trx: Knex.Transaction, id: number): Promise<UsuarioConHash> {
  const row = await trx<UsuarioRow>('usuarios').where({ id }).forUpdate().first();
  if (!row) throw notFound(id);
  return toUsuario(row, (await asignacionesDe(trx, [id])).get(id) ?? []);
}

/** The event of a change and its audit row, both in the write's transaction. */
async function publicar(trx: Knex.Transaction, event: ReturnType<IdentidadEvents['usuario']>): Promise<void> {
  await enqueueEvent(trx, event);
  await anexar(trx, hechoDeEvento(event.envelope as unknown as SobreEvento));
}

function ctxOf(w: Escritura, at: Date): WriteContext {
  return { autor: w.autor, at, traceparent: w.caller.traceparent, tracestate: w.caller.tracestate };
}

/**
 * Refuses a change that takes `antes` out of the active ADMINs when no other is left. Call with guardia_admin locked.
 */
async function protegerUltimoAdmin(
  trx: Knex.Transaction,
  antes: Usuario,
  despues: Pick<Usuario, 'estado' | 'asignaciones'> | null,
): Promise<void> {
  if (!esAdminActivo(antes) || (despues && esAdminActivo(despues))) return;
  if ((await adminsActivosSalvo(trx, antes.id)) === 0) throw ultimoAdmin();
}

async function lockGuardia(trx: Knex.Transaction): Promise<void> {
  await trx.raw('SELECT id FROM guardia_admin WHERE id = 1 FOR UPDATE');
}

async function insertarAsignaciones(trx: Knex.Transaction, id: number, asignaciones: Asignacion[]): Promise<void> {
  if (asignaciones.length === 0) return;
  await trx('asignaciones').insert(asignaciones.map((a) => ({ usuario_id: id, rol: a.rol, bodega_id: a.bodegaId })));
}

/** Writes the new state of a locked user, bumping its version (and its credential version when asked). */
async function guardar(
  trx: Knex.Transaction,
  {
    antes,
    cambios,
    at,
    nuevaCredencial,
  }: {
    antes: UsuarioConHash;
    cambios: Partial<Pick<UsuarioConHash, 'usuario' | 'estado' | 'passwordHash'>>;
    at: Date;
    nuevaCredencial: boolean;
  },
): Promise<UsuarioConHash> {
  const despues: UsuarioConHash = {
    ...antes,
    ...cambios,
    tienePassword: (cambios.passwordHash ?? antes.passwordHash) !== null,
    version: antes.version + 1,
    credencialVersion: antes.credencialVersion + (nuevaCredencial ? 1 : 0),
    fechaActualizacion: at,
  };
  try {
    await trx('usuarios')
      .where({ id: antes.id })
      .update({
        usuario: despues.usuario,
        usuario_clave: claveDeUsuario(despues.usuario),
        estado: despues.estado,
        password_hash: despues.passwordHash,
        credencial_version: despues.credencialVersion,
        version: despues.version,
        fecha_actualizacion: at,
      });
  } catch (err) {
    if (isDuplicateNombre(err)) throw duplicado(despues.usuario);
    throw err;
  }
  return despues;
}

async function crearEn(
  trx: Knex.Transaction,
  events: IdentidadEvents,
  nuevo: NuevoUsuario,
  ctx: WriteContext,
): Promise<Usuario> {
  let id: number;
  try {
    const [insertId] = await trx('usuarios').insert({
      usuario: nuevo.usuario,
      usuario_clave: claveDeUsuario(nuevo.usuario),
      tipo: nuevo.tipo,
      estado: 'ACTIVO',
      password_hash: nuevo.passwordHash,
      fecha_creacion: ctx.at,
      fecha_actualizacion: ctx.at,
    });
    id = Number(insertId);
  } catch (err) {
    if (isDuplicateNombre(err)) throw duplicado(nuevo.usuario);
    throw err;
  }
  await insertarAsignaciones(trx, id, nuevo.asignaciones);
  const usuario: Usuario = {
    id,
    usuario: nuevo.usuario,
    tipo: nuevo.tipo,
    estado: 'ACTIVO',
    asignaciones: ordenar([...nuevo.asignaciones]),
    credencialVersion: 1,
    version: 1,
    fechaCreacion: ctx.at,
    fechaActualizacion: ctx.at,
    tienePassword: nuevo.passwordHash !== null,
  };
  await publicar(trx, events.usuario('UsuarioCreado', usuario, ctx));
  return usuario;
}

function crear(
  db: Knex,
  deps: UsuarioStoreDeps,
  { nuevo, w }: { nuevo: NuevoUsuario; w: Escritura },
): Promise<Usuario> {
  return write(db, deps, w, (trx, at) => crearEn(trx, deps.events, nuevo, ctxOf(w, at)));
}

async function obtener(db: Knex, id: number): Promise<Usuario> {
  return publico(await obtenerConHash(db, id));
}

async function obtenerConHash(db: Knex, id: number): Promise<UsuarioConHash> {
  const row = await withDbErrors(() => db<UsuarioRow>('usuarios').where({ id }).first());
  if (!row) throw notFound(id);
  return toUsuario(row, (await withDbErrors(() => asignacionesDe(db, [id]))).get(id) ?? []);
}

async function paraAutenticar(db: Knex, usuario: string): Promise<UsuarioConHash | undefined> {
  // One round trip whether or not the name exists: a second query for a known name's bindings made a refused
  // login of a known user measurably slower than an unknown one's (the login-timing fault test saw 5 %).
  const rows: (UsuarioRow & { a_rol: Asignacion['rol'] | null; a_bodega_id: number | null })[] = await withDbErrors(
    () =>
      db('usuarios as u')
        .leftJoin('asignaciones as a', 'a.usuario_id', 'u.id')
        .where('u.usuario_clave', claveDeUsuario(usuario))
        .select('u.*', 'a.rol as a_rol', 'a.bodega_id as a_bodega_id'),
  );
  const row = rows[0];
  if (!row) return undefined;
  const asignaciones = rows.flatMap((r) => (r.a_rol === null ? [] : [{ rol: r.a_rol, bodegaId: r.a_bodega_id }]));
  return toUsuario(row, ordenar(asignaciones));
}

async function listar(
  db: Knex,
  afterId: number | null,
  pageSize: number,
): Promise<{ usuarios: Usuario[]; hasMore: boolean }> {
  const rows = await withDbErrors(() => {
    const q = db<UsuarioRow>('usuarios')
      .orderBy('id')
      .limit(pageSize + 1);
    if (afterId !== null) q.where('id', '>', afterId);
    return q;
  });
  const page = rows.slice(0, pageSize);
  const asignaciones = await withDbErrors(() =>
    asignacionesDe(
      db,
      page.map((r) => r.id),
    ),
  );
  return {
    usuarios: page.map((r) => publico(toUsuario(r, asignaciones.get(r.id) ?? []))),
    hasMore: rows.length > pageSize,
  };
}

function actualizar(
  db: Knex,
  deps: UsuarioStoreDeps,
  { id, cambios, w }: { id: number; cambios: { usuario?: string; estado?: EstadoUsuario }; w: Escritura },
): Promise<Usuario> {
  return write(db, deps, w, async (trx, at) => {
    if (cambios.estado !== undefined) await lockGuardia(trx);
    const antes = await locked(trx, id);
    requireVersion(antes, w.expectedVersion);
    const campos: CampoUsuario[] = [];
    if (cambios.usuario !== undefined && cambios.usuario !== antes.usuario) campos.push('nombre');
    if (cambios.estado !== undefined && cambios.estado !== antes.estado) campos.push('estado');
    if (cambios.estado !== undefined)
      await protegerUltimoAdmin(trx, antes, { estado: cambios.estado, asignaciones: antes.asignaciones });
    // A suspension or reactivation voids every cached verification of this user.
    const despues = await guardar(trx, { antes, cambios, at, nuevaCredencial: campos.includes('estado') });
    await publicar(trx, deps.events.usuario('UsuarioActualizado', despues, ctxOf(w, at), campos));
    return publico(despues);
  });
}

async function eliminar(db: Knex, deps: UsuarioStoreDeps, { id, w }: { id: number; w: Escritura }): Promise<void> {
  await write(db, deps, w, async (trx, at) => {
    await lockGuardia(trx);
    const antes = await locked(trx, id);
    requireVersion(antes, w.expectedVersion);
    await protegerUltimoAdmin(trx, antes, null);
    // Its bindings and tokens go with it (ON DELETE CASCADE): a deleted user's token authenticates nobody.
    await trx('usuarios').where({ id }).delete();
    await publicar(trx, deps.events.usuario('UsuarioEliminado', antes, ctxOf(w, at)));
    return null;
  });
}

function cambiarPassword(
  db: Knex,
  deps: UsuarioStoreDeps,
  { id, passwordHash, w }: { id: number; passwordHash: string; w: Escritura },
): Promise<Usuario> {
  return write(db, deps, w, async (trx, at) => {
    const antes = await locked(trx, id);
    requireVersion(antes, w.expectedVersion);
    const despues = await guardar(trx, { antes, cambios: { passwordHash }, at, nuevaCredencial: true });
    await publicar(trx, deps.events.usuario('UsuarioActualizado', despues, ctxOf(w, at), ['password']));
    return publico(despues);
  });
}

function setAsignaciones(
  db: Knex,
  deps: UsuarioStoreDeps,
  {
    id,
    asignaciones,
    w,
    autorizar,
  }: { id: number; asignaciones: Asignacion[]; w: Escritura; autorizar: (antes: Asignacion[]) => void },
): Promise<Usuario> {
  return write(db, deps, w, async (trx, at) => {
    await lockGuardia(trx);
    const antes = await locked(trx, id);
    requireVersion(antes, w.expectedVersion);
    autorizar(antes.asignaciones);
    await protegerUltimoAdmin(trx, antes, { estado: antes.estado, asignaciones });
    await trx('asignaciones').where({ usuario_id: id }).delete();
    await insertarAsignaciones(trx, id, asignaciones);
    const despues = await guardar(trx, {
      antes: { ...antes, asignaciones: ordenar([...asignaciones]) },
      cambios: {},
      at,
      nuevaCredencial: true,
    });
    await publicar(trx, deps.events.usuario('UsuarioActualizado', despues, ctxOf(w, at), ['asignaciones']));
    return publico(despues);
  });
}

async function rehash(
  db: Knex,
  { id, anterior, passwordHash }: { id: number; anterior: string; passwordHash: string },
): Promise<void> {
  // Only if nobody changed the password meanwhile.
  await withDbErrors(() =>
    db('usuarios').where({ id, password_hash: anterior }).update({ password_hash: passwordHash }),
  );
}

async function hayAdminActivo(db: Knex): Promise<boolean> {
  const [[row]] = (await withDbErrors(() =>
    db.raw(`SELECT EXISTS (SELECT 1 FROM usuarios u JOIN asignaciones a ON a.usuario_id = u.id
              WHERE a.rol = 'ADMIN' AND a.bodega_id IS NULL AND u.estado = 'ACTIVO') AS hay`),
  )) as [{ hay: number }[]];
  return Number(row?.hay) === 1;
}

async function asegurarAdmin(
  db: Knex,
  deps: UsuarioStoreDeps,
  { usuario, passwordHash }: { usuario: string; passwordHash: () => Promise<string> },
): Promise<'creado' | 'restaurado' | 'existente'> {
  if (await hayAdminActivo(db)) return 'existente';
  // Hashed before the transaction: no lock is held through tens of milliseconds of argon2.
  const hash = await passwordHash();
  const caller: CallContext = { usuario: 'system' };
  const w: Escritura = {
    caller,
    autor: { principalId: null, usuario: 'system', metodoAuth: 'system', tokenId: null },
  };
  return write(db, deps, w, async (trx, at) => {
    await lockGuardia(trx);
    const [[hay]] = (await trx.raw(
      `SELECT EXISTS (SELECT 1 FROM usuarios u JOIN asignaciones a ON a.usuario_id = u.id
         WHERE a.rol = 'ADMIN' AND a.bodega_id IS NULL AND u.estado = 'ACTIVO') AS hay`,
    )) as [{ hay: number }[]];
    if (Number(hay?.hay) === 1) return 'existente' as const;
    const admin: Asignacion = { rol: 'ADMIN', bodegaId: null };
    const existing = await trx<UsuarioRow>('usuarios')
      .where('usuario_clave', claveDeUsuario(usuario))
      .forUpdate()
      .first();
    if (!existing) {
      await crearEn(
        trx,
        deps.events,
        { usuario, tipo: 'HUMANO', passwordHash: hash, asignaciones: [admin] },
        ctxOf(w, at),
      );
      return 'creado' as const;
    }
    // Break-glass: the configured credential gets its ADMIN back (docs/contract.md §12.6).
    const antes = await locked(trx, existing.id);
    const asignaciones = antes.asignaciones.some((a) => a.rol === 'ADMIN' && a.bodegaId === null)
      ? antes.asignaciones
      : [...antes.asignaciones, admin];
    await trx('asignaciones').where({ usuario_id: antes.id }).delete();
    await insertarAsignaciones(trx, antes.id, asignaciones);
    const despues = await guardar(trx, {
      antes: { ...antes, asignaciones: ordenar([...asignaciones]) },
      cambios: { estado: 'ACTIVO', passwordHash: hash },
      at,
      nuevaCredencial: true,
    });
    await publicar(
      trx,
      deps.events.usuario('UsuarioActualizado', despues, ctxOf(w, at), ['estado', 'password', 'asignaciones']),
    );
    return 'restaurado' as const;
  });
}

export function createUsuarioStore(db: Knex, deps: UsuarioStoreDeps): UsuarioStore {
  return {
    crear: (nuevo, w) => crear(db, deps, { nuevo, w }),
    obtener: (id) => obtener(db, id),
    paraAutenticar: (usuario) => paraAutenticar(db, usuario),
    obtenerConHash: (id) => obtenerConHash(db, id),
    listar: (afterId, pageSize) => listar(db, afterId, pageSize),
    actualizar: (id, cambios, w) => actualizar(db, deps, { id, cambios, w }),
    eliminar: (id, w) => eliminar(db, deps, { id, w }),
    cambiarPassword: (id, passwordHash, w) => cambiarPassword(db, deps, { id, passwordHash, w }),
    setAsignaciones: (id, asignaciones, w, autorizar) => setAsignaciones(db, deps, { id, asignaciones, w, autorizar }),
    rehash: (id, anterior, passwordHash) => rehash(db, { id, anterior, passwordHash }),
    hayAdminActivo: () => hayAdminActivo(db),
    asegurarAdmin: (usuario, passwordHash) => asegurarAdmin(db, deps, { usuario, passwordHash }),
  };
}
