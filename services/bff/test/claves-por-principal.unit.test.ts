import { isIdempotencyKey } from '@inventario/platform';
import { principalCompartido } from '../src/http/auth';
import { clavePorPrincipal, conClavesPorPrincipal } from '../src/auth/claves-por-principal';
import type { Caller, InventarioApi, WriteOptions } from '../src/inventario/model';

const como = (id: number): Caller => ({ usuario: 'ana', principal: { ...principalCompartido('ana'), id } });

describe('idempotency keys scoped by principal id', () => {
  it("names the principal's id in the key, so two principals' keys never meet", () => {
    expect(clavePorPrincipal(como(7), 'k-1')).toBe('p7:k-1');
    expect(clavePorPrincipal(como(8), 'k-1')).not.toBe(clavePorPrincipal(como(7), 'k-1'));
  });

  it('stays a valid key of at most 255 characters for the longest client key, hashed in its own form', () => {
    const longest = 'x'.repeat(255);
    const scoped = clavePorPrincipal(como(123456), longest);
    expect(scoped).toMatch(/^p123456#[A-Za-z0-9_-]{43}$/);
    expect(isIdempotencyKey(scoped)).toBe(true);
    expect(clavePorPrincipal(como(123456), `${longest.slice(1)}y`)).not.toBe(scoped);
  });

  it('leaves keys unchanged for the shared credential (id 0) and for a caller without principal', () => {
    expect(clavePorPrincipal(como(0), 'k-1')).toBe('k-1');
    expect(clavePorPrincipal({ usuario: 'x' }, 'k-1')).toBe('k-1');
  });

  it('rewrites the WriteOptions of every write use case, keeping its other fields, and passes reads through', async () => {
    const seen: unknown[][] = [];
    const inner = {
      createBodega: (...args: unknown[]) => (seen.push(args), Promise.resolve()),
      getBodega: (...args: unknown[]) => (seen.push(args), Promise.resolve()),
    } as unknown as InventarioApi;
    const onReplay = () => undefined;
    const wrapped = conClavesPorPrincipal(inner);
    await wrapped.createBodega(
      como(5),
      { nombre: 'n', ubicacion: 'u', capacidad: 1 },
      {
        idempotencyKey: 'k',
        ifMatch: 3,
        onReplay,
      },
    );
    await wrapped.getBodega(como(5), 9);
    expect(seen[0]![2]).toEqual({ idempotencyKey: 'p5:k', ifMatch: 3, onReplay } satisfies WriteOptions);
    expect(seen[1]).toEqual([como(5), 9]);
  });
});
