import {
  AlreadyExistsError,
  isDuplicateEntry,
  isTransientDbError,
  LockConflictError,
  retrying,
  UnavailableError,
  type Logger,
} from '@inventario/platform';
import type { CuentaDeServicio } from './config';
import type { TokenStore } from './store/token-store';
import type { Escritura, UsuarioStore } from './store/usuario-store';

const SISTEMA: Escritura = {
  caller: { usuario: 'system' },
  autor: { principalId: null, usuario: 'system', metodoAuth: 'system', tokenId: null },
};

/**
 * What applying one declaration came to: the token's fate, `retirado` when its id was retired with its deleted owner,
 * or `humano` when the name is a human's.
 */
type Resultado = 'creado' | 'renovado' | 'revocado' | 'retirado' | 'humano';

/**
 * The internal callers the deployment declares (TOKENS_DE_SERVICIO), made at start so producto-svc, bodega-svc,
 * the notifier and the seed can present their own tokens from the first install (docs/decisions.md, "Declared
 * service tokens"). A missing account is created as SERVICIO with its role everywhere; an existing one keeps the
 * bindings its administrators gave it. Its token keeps the declared id: created when missing, its expiry renewed to
 * the cap at every start (the declaration, not a calendar, decides how long it lives), never revived once retired:
 * revoked, or deleted with its account, which is then not created again either (docs/decisions.md, "Retired declared
 * token ids outlive their account"). A declaration that names a human account, or a token id holding something else,
 * is refused with an error in the log and skipped: the rest of identidad-svc serves on.
 *
 * Replicas run this at the same moment on one database (docs/decisions.md, "Declared service tokens under
 * concurrent start"): the rows' keys decide which one creates, and contention or a database away past the write's own
 * retries is waited out like the first ADMIN's, so no replica serves having skipped its own declaration for a race.
 */
export async function asegurarCuentasDeServicio(
  cuentas: readonly CuentaDeServicio[],
  deps: { usuarios: UsuarioStore; tokens: TokenStore; vigenciaMaxDias: number; logger: Logger; signal: AbortSignal },
): Promise<void> {
  for (const [i, cuenta] of cuentas.entries()) {
    // The entry's position in TOKENS_DE_SERVICIO, its name and id: never its secret.
    const contexto = { entrada: i + 1, usuario: cuenta.usuario, tokenId: cuenta.tokenId };
    try {
      const resultado = await retrying(
        `declared service token ${cuenta.tokenId}`,
        () => asegurar(cuenta, deps),
        deps.logger,
        deps.signal,
        esPasajero,
      );
      if (resultado === 'humano')
        deps.logger.error(contexto, 'TOKENS_DE_SERVICIO names a human user: not given a token');
      else if (resultado === 'revocado')
        deps.logger.error(contexto, 'declared service token was revoked: declare a new one');
      else if (resultado === 'retirado')
        deps.logger.error(contexto, 'declared service token was retired with its deleted account: declare a new one');
      else deps.logger.info({ ...contexto, resultado }, 'declared service token');
    } catch (err) {
      // Shutting down mid-start: the start itself fails, not this declaration.
      if (deps.signal.aborted) throw err;
      deps.logger.error({ ...contexto, err }, 'declared service token not applied');
    }
  }
}

/** Another replica's write in the way (a deadlock or lock wait past the write's retries) or the database away. */
function esPasajero(err: unknown): boolean {
  return err instanceof LockConflictError || err instanceof UnavailableError || isTransientDbError(err);
}

async function asegurar(
  cuenta: CuentaDeServicio,
  deps: { usuarios: UsuarioStore; tokens: TokenStore; vigenciaMaxDias: number },
): Promise<Resultado> {
  // Checked before the account: a deleted one must not come back either, holding nothing.
  const retiro = await deps.tokens.retiro(cuenta.tokenId);
  if (retiro) return retiro === 'REVOCADO' ? 'revocado' : 'retirado';
  const usuarioId = await cuentaDe(cuenta, deps.usuarios);
  if (usuarioId === undefined) return 'humano';
  const declarado = {
    id: cuenta.tokenId,
    secreto: cuenta.secreto,
    usuarioId,
    nombre: `${cuenta.usuario} (TOKENS_DE_SERVICIO)`,
    expiraEn: new Date(Date.now() + deps.vigenciaMaxDias * 86_400_000),
  };
  // The replica that lost the insert to another finds the committed row and renews it.
  const aplicar = () => deps.tokens.asegurarDeclarado(declarado, SISTEMA);
  return aplicar().catch((err: unknown) => {
    if (isDuplicateEntry(err)) return aplicar();
    throw err;
  });
}

/** The account's id; undefined when the name belongs to a human. */
async function cuentaDe(cuenta: CuentaDeServicio, usuarios: UsuarioStore): Promise<number | undefined> {
  const existente = await usuarios.paraAutenticar(cuenta.usuario);
  if (existente) return existente.tipo === 'SERVICIO' ? existente.id : undefined;
  try {
    const nuevo = { usuario: cuenta.usuario, tipo: 'SERVICIO' as const, passwordHash: null };
    return (await usuarios.crear({ ...nuevo, asignaciones: [{ rol: cuenta.rol, bodegaId: null }] }, SISTEMA)).id;
  } catch (err) {
    // Another replica created it first: read its row.
    if (!(err instanceof AlreadyExistsError)) throw err;
    return cuentaDe(cuenta, usuarios);
  }
}
