import crypto from 'node:crypto';
import { generateKeyPairSync } from 'node:crypto';
import {
  clavePublicaDeJwk,
  crearFirmante,
  crearVerificador,
  jwkPublica,
  kidDe,
  permisosDe,
  PrincipalInvalidoError,
  type Principal,
} from '../src';

const keys = generateKeyPairSync('ed25519');
const other = generateKeyPairSync('ed25519');
const TTL = 60;

const principal: Principal = {
  id: 7,
  usuario: 'Ñandú',
  tipo: 'HUMANO',
  metodoAuth: 'token',
  tokenId: 12,
  credencialVersion: 3,
  permisos: permisosDe([
    { rol: 'LECTOR', bodegaId: null },
    { rol: 'OPERADOR', bodegaId: 4 },
  ]),
};

const firmante = crearFirmante(keys.privateKey, TTL);
const verificador = crearVerificador(new Map([[kidDe(keys.publicKey), keys.publicKey]]), TTL);
const now = new Date('2026-03-01T10:00:00Z');

function refusal(token: string, at: Date = now): string {
  try {
    verificador.verificar(token, at);
  } catch (err) {
    expect(err).toBeInstanceOf(PrincipalInvalidoError);
    return (err as Error).message;
  }
  throw new Error('expected the token to be refused');
}

/** The token with its payload replaced, keeping header and signature. */
function withPayload(token: string, edit: (claims: Record<string, unknown>) => void): string {
  const [header, payload, signature] = token.split('.') as [string, string, string];
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
  edit(claims);
  return `${header}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${signature}`;
}

describe('the signed principal', () => {
  it('round-trips the principal, its rights included, and expires after the TTL', () => {
    const { token, expiraEn } = firmante.firmar(principal, now);
    expect(expiraEn.getTime() - now.getTime()).toBe(TTL * 1000);
    const seen = verificador.verificar(token, now);
    expect({ ...seen, permisos: [...seen.permisos] }).toEqual({ ...principal, permisos: [...principal.permisos] });
  });

  it('refuses a principal edited after signing (a hand-made principal in metadata)', () => {
    const { token } = firmante.firmar(principal, now);
    expect(refusal(withPayload(token, (c) => (c.prm = { 'usuarios:administrar': '*' })))).toBe('bad signature');
    expect(refusal(withPayload(token, (c) => (c.sub = '1')))).toBe('bad signature');
  });

  it('refuses one signed by another key, even under our kid', () => {
    const forged = crearFirmante(other.privateKey, TTL).firmar(principal, now).token;
    expect(refusal(forged)).toMatch(/^unknown kid/);
    const [, payload, signature] = forged.split('.') as [string, string, string];
    const header = Buffer.from(JSON.stringify({ alg: 'EdDSA', kid: firmante.kid, typ: 'JWT' })).toString('base64url');
    expect(refusal(`${header}.${payload}.${signature}`)).toBe('bad signature');
  });

  it('refuses any other algorithm, "none" included', () => {
    const { token } = firmante.firmar(principal, now);
    const [, payload] = token.split('.') as [string, string, string];
    for (const alg of ['none', 'HS256', 'RS256']) {
      const header = Buffer.from(JSON.stringify({ alg, kid: firmante.kid, typ: 'JWT' })).toString('base64url');
      expect(refusal(`${header}.${payload}.`)).toBe('unexpected header');
    }
  });

  it('refuses it once expired (past a few seconds of skew), and before it was issued', () => {
    const { token } = firmante.firmar(principal, now);
    expect(verificador.verificar(token, new Date(now.getTime() + (TTL + 4) * 1000)).id).toBe(7);
    expect(refusal(token, new Date(now.getTime() + (TTL + 5) * 1000))).toBe('expired');
    expect(refusal(token, new Date(now.getTime() - 6000))).toBe('issued in the future');
  });

  it('refuses a lifetime longer than the verifier allows', () => {
    const long = crearFirmante(keys.privateKey, TTL * 10).firmar(principal, now).token;
    expect(refusal(long)).toBe('lifetime longer than allowed');
  });

  it('refuses malformed input without throwing anything else', () => {
    for (const junk of ['', 'a.b', 'a.b.c', '..', 'x'.repeat(9000)]) expect(typeof refusal(junk)).toBe('string');
  });

  it('publishes its key as a JWK the services can load, whose thumbprint is the kid', () => {
    const jwk = jwkPublica(keys.publicKey);
    expect(jwk).toMatchObject({ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA', use: 'sig', kid: firmante.kid });
    expect(jwk).not.toHaveProperty('d');
    const loaded = clavePublicaDeJwk(jwk);
    const fromJwk = crearVerificador(new Map([[jwk.kid!, loaded]]), TTL);
    expect(fromJwk.verificar(firmante.firmar(principal, now).token, now).id).toBe(7);
  });

  it('is signed only with an Ed25519 key', () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
    expect(() => crearFirmante(rsa.privateKey, TTL)).toThrow(/Ed25519/);
  });
});

describe('a verifier that keeps the tokens it accepted (recordar)', () => {
  const claves = new Map([[kidDe(keys.publicKey), keys.publicKey]]);
  let firmas: jest.SpyInstance;
  beforeEach(() => {
    firmas = jest.spyOn(crypto, 'verify');
  });
  afterEach(() => firmas.mockRestore());

  it('checks the signature of a token once and its lifetime on every call, answering as one that keeps nothing', () => {
    const recordando = crearVerificador(claves, TTL, 10);
    const { token } = firmante.firmar(principal, now);
    expect(recordando.verificar(token, now)).toEqual(verificador.verificar(token, now));
    firmas.mockClear();
    expect(recordando.verificar(token, new Date(now.getTime() + (TTL + 4) * 1000)).id).toBe(7);
    expect(firmas).not.toHaveBeenCalled();
    expect(() => recordando.verificar(token, new Date(now.getTime() - 6000))).toThrow('issued in the future');
    expect(() => recordando.verificar(token, new Date(now.getTime() + (TTL + 5) * 1000))).toThrow('expired');
    // An expired token is forgotten: seen again, its signature is checked again.
    expect(recordando.verificar(token, now).id).toBe(7);
    expect(firmas).toHaveBeenCalledTimes(1);
  });

  it('keeps no refusal, and keeps at most `recordar` tokens, the oldest leaving first', () => {
    const recordando = crearVerificador(claves, TTL, 2);
    const { token } = firmante.firmar(principal, now);
    const alterado = withPayload(token, (c) => (c.prm = { 'usuarios:administrar': '*' }));
    for (let i = 0; i < 2; i++) expect(() => recordando.verificar(alterado, now)).toThrow('bad signature');
    expect(firmas).toHaveBeenCalledTimes(2);
    const [a, b, c] = [1, 2, 3].map((s) => firmante.firmar(principal, new Date(now.getTime() + s * 1000)).token);
    for (const t of [a, b, c]) recordando.verificar(t!, now);
    firmas.mockClear();
    recordando.verificar(c!, now);
    recordando.verificar(b!, now);
    expect(firmas).not.toHaveBeenCalled();
    recordando.verificar(a!, now);
    expect(firmas).toHaveBeenCalledTimes(1);
  });
});
