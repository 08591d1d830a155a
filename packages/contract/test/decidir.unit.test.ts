import fc from 'fast-check';
import {
  aLista,
  bodegasVisibles,
  contenidoEn,
  cubre,
  decidir,
  deLista,
  interseccion,
  NOMBRES_ROL,
  PERMISOS,
  permisosDe,
  puedeConceder,
  ROLES,
  type Asignacion,
  type Permiso,
  type Permisos,
} from '../src';

const A = 1;
const B = 2;
const C = 3;

describe('the built-in roles', () => {
  const globalLector = permisosDe([{ rol: 'LECTOR', bodegaId: null }]);
  const operadorA = permisosDe([{ rol: 'OPERADOR', bodegaId: A }]);
  const supervisorAB = permisosDe([
    { rol: 'SUPERVISOR', bodegaId: A },
    { rol: 'SUPERVISOR', bodegaId: B },
  ]);
  const auditor = permisosDe([{ rol: 'AUDITOR', bodegaId: null }]);
  const admin = permisosDe([{ rol: 'ADMIN', bodegaId: null }]);
  const nadie = permisosDe([]);

  // [who, permission, warehouses touched, allowed]
  const table: [string, Permisos, Permiso, number[], boolean][] = [
    ['no binding', nadie, 'productos:leer', [], false],
    ['no binding', nadie, 'existencias:leer', [A], false],
    ['no binding', nadie, 'tokens:propios', [], false],
    ['a global LECTOR', globalLector, 'productos:leer', [], true],
    ['a global LECTOR', globalLector, 'existencias:leer', [A, B, C], true],
    ['a global LECTOR', globalLector, 'existencias:mover', [A], false],
    ['a global LECTOR', globalLector, 'auditoria:leer', [], false],
    ['a global LECTOR', globalLector, 'usuarios:leer', [], false],
    ['an OPERADOR of A', operadorA, 'existencias:mover', [A], true],
    ['an OPERADOR of A', operadorA, 'existencias:mover', [B], false],
    ['an OPERADOR of A (a transfer needs both ends)', operadorA, 'existencias:transferir', [A, B], false],
    ['an OPERADOR of A', operadorA, 'existencias:ajustar', [A], false],
    // Product permissions are global: a scoped binding holds none.
    ['an OPERADOR of A', operadorA, 'productos:leer', [], false],
    ['an OPERADOR of A', operadorA, 'bodegas:leer', [A], true],
    ['an OPERADOR of A', operadorA, 'tokens:propios', [], false],
    ['a SUPERVISOR of A and B', supervisorAB, 'existencias:transferir', [A, B], true],
    ['a SUPERVISOR of A and B', supervisorAB, 'existencias:transferir', [A, C], false],
    ['a SUPERVISOR of A and B', supervisorAB, 'operaciones:revertir', [A, B], true],
    ['a SUPERVISOR of A and B', supervisorAB, 'umbrales:configurar', [B], true],
    ['an AUDITOR', auditor, 'auditoria:leer', [], true],
    ['an AUDITOR', auditor, 'consistencia:verificar', [], true],
    ['an AUDITOR', auditor, 'existencias:mover', [A], false],
    ['an ADMIN', admin, 'usuarios:administrar', [], true],
    ['an ADMIN', admin, 'bodegas:eliminar', [], true],
    ['an ADMIN', admin, 'existencias:ajustar', [A, B, C], true],
  ];

  it.each(table)('%s asking %s on %j is allowed: %s', (_who, permisos, permiso, bodegas, allowed) => {
    expect(decidir(permisos, permiso, bodegas).permitido).toBe(allowed);
  });

  it('names the permission and the first warehouse a refusal lacks (the 403 body)', () => {
    expect(decidir(operadorA, 'existencias:ajustar', [A])).toEqual({
      permitido: false,
      permiso: 'existencias:ajustar',
    });
    expect(decidir(operadorA, 'existencias:transferir', [A, B])).toEqual({
      permitido: false,
      permiso: 'existencias:transferir',
      bodegaId: B,
    });
    expect(decidir(supervisorAB, 'existencias:transferir', [A, C, B])).toEqual({
      permitido: false,
      permiso: 'existencias:transferir',
      bodegaId: C,
    });
  });

  it('nests the roles: LECTOR ⊂ OPERADOR ⊂ SUPERVISOR ⊂ ADMIN, and AUDITOR reads what LECTOR reads and moves nothing', () => {
    const of = (rol: (typeof NOMBRES_ROL)[number]) => permisosDe([{ rol, bodegaId: null }]);
    expect(contenidoEn(of('LECTOR'), of('OPERADOR'))).toBe(true);
    expect(contenidoEn(of('OPERADOR'), of('SUPERVISOR'))).toBe(true);
    expect(contenidoEn(of('SUPERVISOR'), of('ADMIN'))).toBe(true);
    expect(contenidoEn(of('LECTOR'), of('AUDITOR'))).toBe(true);
    expect(contenidoEn(of('OPERADOR'), of('AUDITOR'))).toBe(false);
    expect([...ROLES.ADMIN].sort()).toEqual([...PERMISOS].sort());
  });

  it('lists the warehouses a scoped reader may see, and none for who has no binding', () => {
    expect(bodegasVisibles(supervisorAB, 'existencias:leer')).toEqual([A, B]);
    expect(bodegasVisibles(globalLector, 'existencias:leer')).toBe('*');
    expect(bodegasVisibles(nadie, 'existencias:leer')).toEqual([]);
  });
});

describe('no escalation', () => {
  it('an ADMIN grants anything; a scoped ADMIN holds the pairs of its warehouse only, and no user administration', () => {
    const admin = permisosDe([{ rol: 'ADMIN', bodegaId: null }]);
    const adminA = permisosDe([{ rol: 'ADMIN', bodegaId: A }]);
    expect(puedeConceder(admin, [{ rol: 'ADMIN', bodegaId: null }]).permitido).toBe(true);
    expect(puedeConceder(adminA, [{ rol: 'OPERADOR', bodegaId: A }]).permitido).toBe(true);
    expect(puedeConceder(adminA, [{ rol: 'OPERADOR', bodegaId: B }])).toEqual({
      permitido: false,
      permiso: 'bodegas:leer',
      bodegaId: B,
    });
    expect(decidir(adminA, 'usuarios:administrar').permitido).toBe(false);
  });

  it('only a global ADMIN grants an ADMIN binding, even one a SUPERVISOR holds every pair of', () => {
    const supervisorA = permisosDe([{ rol: 'SUPERVISOR', bodegaId: A }]);
    expect(cubre(supervisorA, permisosDe([{ rol: 'ADMIN', bodegaId: A }])).permitido).toBe(true);
    expect(puedeConceder(supervisorA, [{ rol: 'ADMIN', bodegaId: A }]).permitido).toBe(false);
    expect(puedeConceder(permisosDe([{ rol: 'ADMIN', bodegaId: A }]), [{ rol: 'ADMIN', bodegaId: A }]).permitido).toBe(
      false,
    );
  });

  it('a grant on every warehouse needs the right on every warehouse, not on each one known', () => {
    const ab = permisosDe([
      { rol: 'OPERADOR', bodegaId: A },
      { rol: 'OPERADOR', bodegaId: B },
    ]);
    expect(cubre(ab, new Map([['existencias:mover', '*']]))).toEqual({
      permitido: false,
      permiso: 'existencias:mover',
    });
    expect(cubre(ab, new Map([['existencias:mover', new Set([A])]])).permitido).toBe(true);
  });
});

// Random principals and requests over a handful of warehouses, so overlaps are common.
const bodega = fc.option(fc.integer({ min: 1, max: 4 }), { nil: null });
const asignacion: fc.Arbitrary<Asignacion> = fc.record({ rol: fc.constantFrom(...NOMBRES_ROL), bodegaId: bodega });
const asignaciones = fc.array(asignacion, { maxLength: 5 });
const alcance: fc.Arbitrary<Permisos> = fc
  .array(
    fc.record({
      permiso: fc.constantFrom(...PERMISOS),
      todasLasBodegas: fc.boolean(),
      bodegaIds: fc.array(fc.integer({ min: 1, max: 4 }), { maxLength: 3 }),
    }),
    {
      maxLength: 6,
    },
  )
  .map(deLista);

/** Every (permission, warehouse) pair a set of rights holds, with 0 standing for "every warehouse". */
function pares(permisos: Permisos): Set<string> {
  return new Set(
    [...permisos].flatMap(([p, donde]) => (donde === '*' ? [`${p}@*`] : [...donde].map((id) => `${p}@${id}`))),
  );
}

function derechoDe(permisos: Permisos, par: string): boolean {
  const [permiso, where] = par.split('@') as [Permiso, string];
  const donde = permisos.get(permiso);
  return donde !== undefined && (donde === '*' || (where !== '*' && donde.has(Number(where))));
}

describe('properties', () => {
  it('a grant the policy accepts never carries a right the granter lacks', () => {
    fc.assert(
      fc.property(asignaciones, asignaciones, (propias, pedidas) => {
        const concedente = permisosDe(propias);
        if (!puedeConceder(concedente, pedidas).permitido) return;
        for (const par of pares(permisosDe(pedidas))) expect(derechoDe(concedente, par)).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it('no one without a global ADMIN binding ever grants an ADMIN binding', () => {
    fc.assert(
      fc.property(asignaciones, bodega, (propias, bodegaId) => {
        fc.pre(!propias.some((a) => a.rol === 'ADMIN' && a.bodegaId === null));
        expect(puedeConceder(permisosDe(propias), [{ rol: 'ADMIN', bodegaId }]).permitido).toBe(false);
      }),
      { numRuns: 2000 },
    );
  });

  it('a token scope the policy accepts, intersected with the owner at use, is never worth more than the owner then', () => {
    fc.assert(
      fc.property(asignaciones, alcance, asignaciones, (alCrear, pedido, despues) => {
        const dueno = permisosDe(alCrear);
        if (!cubre(dueno, pedido).permitido) return;
        // The owner may have been demoted since: the token follows it down.
        const efectivo = interseccion(pedido, permisosDe(despues));
        expect(contenidoEn(efectivo, permisosDe(despues))).toBe(true);
        expect(contenidoEn(efectivo, pedido)).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it('decidir agrees with the pairs: allowed on a set of warehouses exactly when every pair is held', () => {
    fc.assert(
      fc.property(
        asignaciones,
        fc.constantFrom(...PERMISOS),
        fc.uniqueArray(fc.integer({ min: 1, max: 4 }), { maxLength: 3 }),
        (propias, permiso, bodegas) => {
          const permisos = permisosDe(propias);
          const esperado = permisos.has(permiso) && bodegas.every((id) => derechoDe(permisos, `${permiso}@${id}`));
          expect(decidir(permisos, permiso, bodegas).permitido).toBe(esperado);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('the wire form round-trips', () => {
    fc.assert(
      fc.property(asignaciones, (propias) => {
        const permisos = permisosDe(propias);
        expect(pares(deLista(aLista(permisos)))).toEqual(pares(permisos));
      }),
    );
  });
});
