import crypto, { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { Metadata } from '@grpc/grpc-js';
import { crearFirmante, kidDe, PRINCIPAL_METADATA_KEY, type Principal } from '@inventario/contract';
import {
  AUTHORIZATION_METADATA_KEY,
  createAutenticacionDeServicio,
  createLogger,
  UnauthenticatedError,
  type IdentidadParaServicios,
} from '../src';

/**
 * The services' check of their callers (docs/contract.md §12.9) against a
 * stand-in identidad-svc: what is verified, what is refused, what is cached.
 */

const principal: Principal = {
  id: 7,
  usuario: 'ana',
  tipo: 'HUMANO',
  metodoAuth: 'password',
  tokenId: null,
  credencialVersion: 1,
  permisos: new Map([['existencias:leer', new Set([3])]]),
};
const logger = createLogger('test', 'silent');

function identidadFalsa(claves: () => Map<string, KeyObject>, tokens: Map<string, string>) {
  const calls = { claves: 0, tokens: 0 };
  const identidad: IdentidadParaServicios = {
    clavesPublicas: () => (calls.claves++, Promise.resolve(claves())),
    autenticarToken: (bearer) => {
      calls.tokens++;
      const firmado = tokens.get(bearer);
      return firmado ? Promise.resolve(firmado) : Promise.reject(new UnauthenticatedError('token no válido'));
    },
    close: () => undefined,
  };
  return { identidad, calls };
}

const md = (key: string, value: string) => {
  const m = new Metadata();
  m.set(key, value);
  return m;
};

describe('the services check of their callers', () => {
  const keys = generateKeyPairSync('ed25519');
  const firmante = crearFirmante(keys.privateKey, 120);
  const claves = () => new Map([[kidDe(keys.publicKey), keys.publicKey]]);

  it('verifies a signed principal offline and names its user; refuses a forged one even when not required', async () => {
    const { identidad } = identidadFalsa(claves, new Map());
    const check = createAutenticacionDeServicio({ requerido: false, identidad, tokenCacheMs: 0, logger });
    const firmado = firmante.firmar(principal).token;
    const ok = await check.autenticar(md(PRINCIPAL_METADATA_KEY, firmado), 'peer');
    expect(ok?.principal).toMatchObject({ id: 7, usuario: 'ana', metodoAuth: 'password' });
    expect(ok?.firmado).toBe(firmado);
    const ajeno = crearFirmante(generateKeyPairSync('ed25519').privateKey, 120).firmar(principal).token;
    const caducado = firmante.firmar(principal, new Date(Date.now() - 600_000)).token;
    for (const forjado of [ajeno, caducado, firmado.slice(0, -2), 'x.y.z', '']) {
      await expect(check.autenticar(md(PRINCIPAL_METADATA_KEY, forjado), 'peer')).rejects.toBeInstanceOf(
        UnauthenticatedError,
      );
    }
    // No credential at all: the legacy caller, while not required.
    await expect(check.autenticar(new Metadata(), 'peer')).resolves.toBeUndefined();
  });

  it('REQUIRE_PRINCIPAL refuses a call with no credential', async () => {
    const { identidad } = identidadFalsa(claves, new Map());
    const check = createAutenticacionDeServicio({ requerido: true, identidad, tokenCacheMs: 0, logger });
    await expect(check.autenticar(md('x-inventario-usuario', 'ana'), 'peer')).rejects.toThrow(/falta el principal/);
  });

  it('without identidad-svc verifies nothing: every call is the legacy caller', async () => {
    const check = createAutenticacionDeServicio({ requerido: false, tokenCacheMs: 0, logger });
    await expect(check.autenticar(md(PRINCIPAL_METADATA_KEY, 'basura'), 'peer')).resolves.toBeUndefined();
  });

  it('asks identidad-svc about a token, caches a success for the configured time, never a failure', async () => {
    const tokens = new Map([['inv_1_bueno', firmante.firmar({ ...principal, metodoAuth: 'token', tokenId: 1 }).token]]);
    const { identidad, calls } = identidadFalsa(claves, tokens);
    const check = createAutenticacionDeServicio({ requerido: true, identidad, tokenCacheMs: 60_000, logger });
    const bueno = md(AUTHORIZATION_METADATA_KEY, 'Bearer inv_1_bueno');
    expect((await check.autenticar(bueno, 'peer'))?.principal).toMatchObject({ metodoAuth: 'token', tokenId: 1 });
    await check.autenticar(bueno, 'peer');
    expect(calls.tokens).toBe(1);
    const malo = md(AUTHORIZATION_METADATA_KEY, 'Bearer inv_1_malo');
    await expect(check.autenticar(malo, 'peer')).rejects.toBeInstanceOf(UnauthenticatedError);
    await expect(check.autenticar(malo, 'peer')).rejects.toBeInstanceOf(UnauthenticatedError);
    expect(calls.tokens).toBe(3);
    await expect(check.autenticar(md(AUTHORIZATION_METADATA_KEY, 'Basic YTpi'), 'peer')).rejects.toThrow(/Bearer/);
  });

  it('fetches the keys once, and again on an unknown kid (a rotation)', async () => {
    const nueva = generateKeyPairSync('ed25519');
    let publicadas = claves();
    const { identidad, calls } = identidadFalsa(() => publicadas, new Map());
    const check = createAutenticacionDeServicio({ requerido: true, identidad, tokenCacheMs: 0, logger });
    await check.autenticar(md(PRINCIPAL_METADATA_KEY, firmante.firmar(principal).token), 'peer');
    await check.autenticar(md(PRINCIPAL_METADATA_KEY, firmante.firmar(principal).token), 'peer');
    expect(calls.claves).toBe(1);
    publicadas = new Map([...claves(), [kidDe(nueva.publicKey), nueva.publicKey]]);
    const rotado = crearFirmante(nueva.privateKey, 120).firmar(principal).token;
    // At most one fetch per 10 s: a flood of unknown kids cannot make every call ask identidad-svc.
    await expect(check.autenticar(md(PRINCIPAL_METADATA_KEY, rotado), 'peer')).rejects.toBeInstanceOf(
      UnauthenticatedError,
    );
    expect(calls.claves).toBe(1);
    const now = Date.now();
    const clock = jest.spyOn(Date, 'now').mockReturnValue(now + 11_000);
    try {
      await expect(check.autenticar(md(PRINCIPAL_METADATA_KEY, rotado), 'peer')).resolves.toBeDefined();
    } finally {
      clock.mockRestore();
    }
    expect(calls.claves).toBe(2);
  });

  it('checks a signed principal once per key set: keys fetched again without its key refuse it', async () => {
    let publicadas = claves();
    const { identidad, calls } = identidadFalsa(() => publicadas, new Map());
    const check = createAutenticacionDeServicio({ requerido: true, identidad, tokenCacheMs: 0, logger });
    const firmado = md(PRINCIPAL_METADATA_KEY, firmante.firmar(principal).token);
    const firmas = jest.spyOn(crypto, 'verify');
    try {
      for (let i = 0; i < 3; i++) expect((await check.autenticar(firmado, 'peer'))?.principal.id).toBe(7);
      expect(firmas).toHaveBeenCalledTimes(1);
      // A rotation that withdraws the old key: a token under the new kid has the keys fetched again.
      const nueva = generateKeyPairSync('ed25519');
      publicadas = new Map([[kidDe(nueva.publicKey), nueva.publicKey]]);
      const rotado = md(PRINCIPAL_METADATA_KEY, crearFirmante(nueva.privateKey, 120).firmar(principal).token);
      const clock = jest.spyOn(Date, 'now').mockReturnValue(Date.now() + 11_000);
      try {
        await expect(check.autenticar(rotado, 'peer')).resolves.toBeDefined();
      } finally {
        clock.mockRestore();
      }
      expect(calls.claves).toBe(2);
      await expect(check.autenticar(firmado, 'peer')).rejects.toBeInstanceOf(UnauthenticatedError);
    } finally {
      firmas.mockRestore();
    }
  });
});
