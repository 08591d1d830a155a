import { AlreadyExistsError, isDuplicateEntry, type Logger } from '@inventario/platform';
import type { CuentaDeServicio } from './config';
import type { TokenStore } from './store/token-store';
import type { Escritura, UsuarioStore } from './store/usuario-store';

const SISTEMA: Escritura = {
  caller: { usuario: 'system' },
  autor: { principalId: null, usuario: 'system', metodoAuth: 'system', tokenId: null },
};

/**
 * The internal callers the deployment declares (TOKENS_DE_SERVICIO), made at start so producto-svc, bodega-svc,
 * the notifier and the seed can present their own tokens from the first install (docs/decisions.md, "Declared
 * service tokens"). A missing account is created as SERVICIO with its role everywhere; an existing one keeps the
 * bindings its administrators gave it. Its token keeps the declared id: created when missing, its expiry renewed to
 * the cap at every start (the declaration, not a calendar, decides how long it lives), never revived once revoked.
 * A declaration that names a human account, or a token id holding something else, is refused with an error in the
 * log and skipped: the rest of identidad-svc serves on.
 */
export async function asegurarCuentasDeServicio(
  cuentas: readonly CuentaDeServicio[],
  deps: { usuarios: UsuarioStore; tokens: TokenStore; vigenciaMaxDias: number; logger: Logger },
): Promise<void> {
  for (const cuenta of cuentas) {
    const contexto = { usuario: cuenta.usuario, tokenId: cuenta.tokenId };
    try {
      const usuarioId = await cuentaDe(cuenta, deps.usuarios);
      if (usuarioId === undefined) {
        deps.logger.error(contexto, 'TOKENS_DE_SERVICIO names a human user: not given a token');
        continue;
      }
      const declarado = {
        id: cuenta.tokenId,
        secreto: cuenta.secreto,
        usuarioId,
        nombre: `${cuenta.usuario} (TOKENS_DE_SERVICIO)`,
        expiraEn: new Date(Date.now() + deps.vigenciaMaxDias * 86_400_000),
      };
      // Replicas starting together: the one that lost the insert finds the row and renews it.
      const asegurar = () => deps.tokens.asegurarDeclarado(declarado, SISTEMA);
      const resultado = await asegurar().catch((err: unknown) => {
        if (isDuplicateEntry(err)) return asegurar();
        throw err;
      });
      if (resultado === 'revocado')
        deps.logger.error(contexto, 'declared service token was revoked: declare a new one');
      else deps.logger.info({ ...contexto, resultado }, 'declared service token');
    } catch (err) {
      deps.logger.error({ ...contexto, err }, 'declared service token not applied');
    }
  }
}

/** The account's id; undefined when the name belongs to a human. */
async function cuentaDe(cuenta: CuentaDeServicio, usuarios: UsuarioStore): Promise<number | undefined> {
  const existente = await usuarios.paraAutenticar(cuenta.usuario);
  if (existente) return existente.tipo === 'SERVICIO' ? existente.id : undefined;
  try {
    const nuevo = { usuario: cuenta.usuario, tipo: 'SERVICIO' as const, passwordHash: null };
    return (await usuarios.crear({ ...nuevo, asignaciones: [{ rol: cuenta.rol, bodegaId: null }] }, SISTEMA)).id;
  } catch (err) {
    if (!(err instanceof AlreadyExistsError)) throw err;
    return cuentaDe(cuenta, usuarios);
  }
}
