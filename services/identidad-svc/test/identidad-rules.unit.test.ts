/** Pure rules of identidad-svc: user names, API token form, the hash chain, configuration. */
import { generateKeyPairSync } from 'node:crypto';
import { InvalidArgumentError } from '@inventario/platform';
import { encadenar, GENESIS, jsonCanonico, verificarTramo, type Hecho, type Registro } from '../src/domain/auditoria';
import { hashDeSecreto, leerToken, nuevoSecreto, secretoCoincide, textoDeToken } from '../src/domain/token';
import { claveDeUsuario, validarAsignaciones, validarNombreUsuario } from '../src/domain/usuario';
import { loadConfig } from '../src/config';

describe('user names', () => {
  it.each([
    ['Ana', 'ANA'],
    ['Núñez', 'NU\u0301N\u0303EZ'],
    ['straße', 'STRASSE'],
  ])('%s and %s are one name', (a, b) => expect(claveDeUsuario(a)).toBe(claveDeUsuario(b)));

  it.each(['', ' ana', 'ana ', 'a:b', 'tab\there', 'System', 'x'.repeat(101)])('refuses %j', (name) => {
    expect(() => validarNombreUsuario(name)).toThrow(InvalidArgumentError);
  });

  it('dedupes bindings and refuses unknown roles and bad warehouse ids, naming each', () => {
    expect(validarAsignaciones([{ rol: 'LECTOR' }, { rol: 'LECTOR' }, { rol: 'OPERADOR', bodegaId: 2 }])).toEqual([
      { rol: 'LECTOR', bodegaId: null },
      { rol: 'OPERADOR', bodegaId: 2 },
    ]);
    try {
      validarAsignaciones([{ rol: 'ROOT' }, { rol: 'LECTOR', bodegaId: 0 }]);
      throw new Error('expected a refusal');
    } catch (err) {
      expect((err as InvalidArgumentError).violations.map((v) => v.campo)).toEqual([
        'asignaciones[0].rol',
        'asignaciones[1].bodegaId',
      ]);
    }
  });
});

describe('API tokens', () => {
  it('reads back what it writes, and nothing else', () => {
    const secreto = nuevoSecreto();
    expect(leerToken(textoDeToken(42, secreto))).toEqual({ id: 42, secreto });
    for (const bad of ['', 'inv_0_' + secreto, 'inv_42_' + secreto.slice(1), 'tok_42_' + secreto, `inv_42_${secreto}x`])
      expect(leerToken(bad)).toBeUndefined();
  });

  it('compares the hash of the secret, and never matches a missing row', () => {
    const secreto = nuevoSecreto();
    expect(secretoCoincide(secreto, hashDeSecreto(secreto))).toBe(true);
    expect(secretoCoincide(nuevoSecreto(), hashDeSecreto(secreto))).toBe(false);
    expect(secretoCoincide(secreto, undefined)).toBe(false);
  });
});

describe('the hash chain', () => {
  const hecho = (n: number): Hecho => ({
    eventoId: `e${n}`,
    accion: 'ProductoCreado',
    recurso: `/productos/${n}`,
    principalId: 1,
    usuario: 'ana',
    metodoAuth: 'password',
    tokenId: null,
    requestId: '',
    direccion: '',
    datos: jsonCanonico({ b: n, a: [{ z: 1, y: 2 }] }),
    ocurridoEn: new Date(1_700_000_000_000 + n),
  });
  function cadena(n: number): Registro[] {
    const out: Registro[] = [];
    let prev: Buffer = GENESIS;
    for (let seq = 1; seq <= n; seq++) {
      const h = encadenar(seq, prev, hecho(seq));
      out.push({ ...hecho(seq), seq, hashAnterior: prev, hash: h });
      prev = h;
    }
    return out;
  }

  it('writes JSON with sorted keys at every depth', () => {
    expect(jsonCanonico({ b: 1, a: { d: 1, c: [{ f: 1, e: 2 }] } })).toBe('{"a":{"c":[{"e":2,"f":1}],"d":1},"b":1}');
  });

  it('verifies an untouched chain and names the first row edited, unlinked or missing', () => {
    const rows = cadena(5);
    expect(verificarTramo({ seq: 0, hash: GENESIS }, rows).rotura).toBeUndefined();
    const edited = rows.map((r) => (r.seq === 3 ? { ...r, usuario: 'mallory' } : r));
    expect(verificarTramo({ seq: 0, hash: GENESIS }, edited).rotura?.seq).toBe(3);
    const gap = rows.filter((r) => r.seq !== 2);
    expect(verificarTramo({ seq: 0, hash: GENESIS }, gap).rotura?.seq).toBe(3);
  });
});

describe('loadConfig', () => {
  const key = generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
  const DATABASE_URL = 'mysql://root@127.0.0.1:3306/inventario_identidad';

  it('listens on 50053 (metrics 9104) with OWASP argon2id parameters and a 120 s signed principal by default', () => {
    expect(loadConfig({ DATABASE_URL, PRINCIPAL_SIGNING_KEY: key })).toMatchObject({
      grpcPort: 50053,
      metricsPort: 9104,
      principalTtlSeconds: 120,
      kdf: { argon2: { memoryKib: 19_456, timeCost: 2, parallelism: 1 } },
      bootstrapAdmin: undefined,
    });
  });

  it('accepts the key with escaped newlines, and lists every problem without echoing a secret', () => {
    expect(
      loadConfig({ DATABASE_URL, PRINCIPAL_SIGNING_KEY: key.replaceAll('\n', '\\n') }).principalSigningKey
        .asymmetricKeyType,
    ).toBe('ed25519');
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 })
      .privateKey.export({ format: 'pem', type: 'pkcs8' })
      .toString();
    expect(() => loadConfig({ DATABASE_URL, PRINCIPAL_SIGNING_KEY: rsa, ARGON2_MEMORY_KIB: '4096' })).toThrow(
      /PRINCIPAL_SIGNING_KEY: must be the PEM of an Ed25519.*ARGON2_MEMORY_KIB: must be at least 19456/,
    );
    expect(() => loadConfig({ DATABASE_URL, PRINCIPAL_SIGNING_KEY: 'secreto-que-no-debe-salir' })).not.toThrow(
      /secreto-que-no-debe-salir/,
    );
    expect(() => loadConfig({ DATABASE_URL, PRINCIPAL_SIGNING_KEY: key, BFF_USER: 'admin' })).toThrow(
      /BFF_PASSWORD: BFF_USER and BFF_PASSWORD go together/,
    );
    expect(() => loadConfig({ DATABASE_URL, PRINCIPAL_SIGNING_KEY: key, BFF_USER: 'a:b', BFF_PASSWORD: 'x' })).toThrow(
      /BFF_USER: must not contain/,
    );
  });

  it('reads the declared service tokens, and refuses a malformed, unknown-role or repeated entry without echoing it', () => {
    const secreto = 'S'.repeat(43);
    const declarados = `producto-svc:ADMIN=inv_1000000001_${secreto}, notifier:LECTOR=inv_1000000003_${secreto}`;
    expect(
      loadConfig({ DATABASE_URL, PRINCIPAL_SIGNING_KEY: key, TOKENS_DE_SERVICIO: declarados }).cuentasDeServicio,
    ).toEqual([
      { usuario: 'producto-svc', rol: 'ADMIN', tokenId: 1_000_000_001, secreto },
      { usuario: 'notifier', rol: 'LECTOR', tokenId: 1_000_000_003, secreto },
    ]);
    expect(loadConfig({ DATABASE_URL, PRINCIPAL_SIGNING_KEY: key }).cuentasDeServicio).toEqual([]);
    for (const malo of [
      `producto-svc=inv_1_${secreto}`,
      `producto-svc:DIOS=inv_1_${secreto}`,
      `producto-svc:ADMIN=inv_1_${secreto.slice(1)}`,
      `a:ADMIN=inv_1_${secreto},b:ADMIN=inv_1_${secreto}`,
      `a:ADMIN=inv_1_${secreto},A:ADMIN=inv_2_${secreto}`,
    ]) {
      const intento = () => loadConfig({ DATABASE_URL, PRINCIPAL_SIGNING_KEY: key, TOKENS_DE_SERVICIO: malo });
      expect(intento).toThrow(/TOKENS_DE_SERVICIO: (entry \d must be nombre:ROL=|names and token ids must each)/);
      expect(intento).not.toThrow(new RegExp(secreto.slice(0, 20)));
    }
  });
});
