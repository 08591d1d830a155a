import {
  deLista,
  interseccion,
  permisosDe,
  type Asignacion,
  type Firmante,
  type Permisos,
  type Principal,
} from '@inventario/contract';
import { UnauthenticatedError, type Logger } from '@inventario/platform';
import { leerToken, secretoCoincide } from '../domain/token';
import type { Usuario } from '../domain/usuario';
import type { TokenStore } from '../store/token-store';
import type { UsuarioStore } from '../store/usuario-store';
import type { PasswordHasher } from './password-hasher';
import type { RegistroFallos } from './registro-fallos';

/**
 * Autenticar (docs/contract.md §12.1): a Basic password or a Bearer token
 * in, the principal, its effective rights and their signed form out. Every
 * failure is the same UNAUTHENTICATED, whichever part failed, and a
 * password check costs one argon2id verification whether or not the user
 * exists (a dummy hash otherwise): neither the answer nor its time tells
 * which user names exist.
 */

export interface Autenticado {
  principal: Principal;
  asignaciones: Asignacion[];
  firmado: { token: string; expiraEn: Date };
}

export type Credencial = { basica: { usuario: string; password: string } } | { bearer: string };

export interface Autenticador {
  autenticar(credencial: Credencial, direccion: string): Promise<Autenticado>;
}

export interface AutenticadorDeps {
  usuarios: UsuarioStore;
  tokens: TokenStore;
  hasher: PasswordHasher;
  firmante: Firmante;
  fallos: RegistroFallos;
  logger: Logger;
}

/**
 * Rights of a token at the moment of use: its scope within what its owner may do now, never more (a demotion demotes
 * its tokens).
 */
export function permisosDeToken(alcance: Parameters<typeof deLista>[0] | null, dueno: Usuario): Permisos {
  const delDueno = permisosDe(dueno.asignaciones);
  return alcance === null ? delDueno : interseccion(deLista(alcance), delDueno);
}

export function createAutenticador(deps: AutenticadorDeps): Autenticador {
  const { usuarios, tokens, hasher, firmante } = deps;

  async function porPassword(nombre: string, password: string): Promise<Omit<Autenticado, 'firmado'> | undefined> {
    const usuario = await usuarios.paraAutenticar(nombre);
    // Service accounts have no password: they are checked against the dummy like an unknown name.
    const phc = usuario?.tipo === 'HUMANO' ? (usuario.passwordHash ?? undefined) : undefined;
    const { ok, rehash } = await hasher.verify(phc, password);
    if (!ok || !usuario || usuario.estado !== 'ACTIVO') return undefined;
    if (rehash && phc) {
      // Parameters raised since this hash was made: store one at today's, now that the password is known good.
      void hasher
        .hash(password)
        .then((nuevo) => usuarios.rehash(usuario.id, phc, nuevo))
        .catch((err: unknown) =>
          deps.logger.warn(
            { err: err instanceof Error ? err.message : String(err), usuarioId: usuario.id },
            'password re-hash failed',
          ),
        );
    }
    return {
      principal: {
        id: usuario.id,
        usuario: usuario.usuario,
        tipo: usuario.tipo,
        metodoAuth: 'password',
        tokenId: null,
        credencialVersion: usuario.credencialVersion,
        permisos: permisosDe(usuario.asignaciones),
      },
      asignaciones: usuario.asignaciones,
    };
  }

  async function porToken(texto: string): Promise<Omit<Autenticado, 'firmado'> | undefined> {
    const leido = leerToken(texto);
    if (!leido) return undefined;
    const found = await tokens.paraAutenticar(leido.id);
    if (!secretoCoincide(leido.secreto, found?.hash) || !found) return undefined;
    const { token } = found;
    if (token.revocadoEn !== null || token.expiraEn.getTime() <= Date.now()) return undefined;
    const dueno = await usuarios.obtenerConHash(token.usuarioId).catch(() => undefined);
    if (!dueno || dueno.estado !== 'ACTIVO') return undefined;
    await tokens.marcarUso(token.id);
    return {
      principal: {
        id: dueno.id,
        usuario: dueno.usuario,
        tipo: dueno.tipo,
        metodoAuth: 'token',
        tokenId: token.id,
        credencialVersion: dueno.credencialVersion,
        permisos: permisosDeToken(token.alcance, dueno),
      },
      asignaciones: dueno.asignaciones,
    };
  }

  return {
    async autenticar(credencial, direccion) {
      const ok =
        'basica' in credencial
          ? await porPassword(credencial.basica.usuario, credencial.basica.password)
          : await porToken(credencial.bearer);
      if (!ok) {
        deps.fallos.anotar(direccion);
        throw new UnauthenticatedError();
      }
      return { ...ok, firmado: firmante.firmar(ok.principal) };
    },
  };
}
