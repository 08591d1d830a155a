import { idempotentBy } from '../src';
import { Metadata } from '@grpc/grpc-js';

/** What a keyed write hands the idempotency check, and that a call without a key costs no encoding. */
describe('idempotentBy', () => {
  const encodings: unknown[] = [];
  const codec = {
    encode: (message: { requestId?: string; n: number }) => {
      encodings.push(message);
      return { finish: () => Uint8Array.of(message.n) };
    },
  };
  beforeEach(() => (encodings.length = 0));

  it('encodes a keyed request without its key, scoped by the metadata when asked', () => {
    const porUsuario = idempotentBy(
      codec,
      (r) => ({ ...r, n: r.n * 2 }),
      (m) => `u:${String(m.get('u')[0])}`,
    );
    const metadata = new Metadata();
    metadata.set('u', 'ana');
    expect(porUsuario.idempotent!({ requestId: 'k1', n: 3 }, metadata)).toEqual({
      requestId: 'k1',
      request: Uint8Array.of(6),
      scope: 'u:ana',
    });
    expect(encodings).toEqual([{ requestId: undefined, n: 6 }]);
    expect(idempotentBy(codec).idempotent!({ requestId: 'k1', n: 3 }, metadata).scope).toBeUndefined();
  });

  it('makes no encoding and no scope for a call without a key', () => {
    const porUsuario = idempotentBy(codec, undefined, () => 'u:ana');
    for (const requestId of ['', undefined]) {
      expect(porUsuario.idempotent!({ requestId, n: 3 }, new Metadata())).toMatchObject({ requestId: '' });
      expect(porUsuario.idempotent!({ requestId, n: 3 }, new Metadata()).scope).toBeUndefined();
    }
    expect(encodings).toEqual([]);
  });
});
