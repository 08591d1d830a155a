/** Who made a call, as read from gRPC metadata (pure logic over a Metadata object). */
import { Metadata, type ServerUnaryCall } from '@grpc/grpc-js';
import { USUARIO_BIN_METADATA_KEY, USUARIO_METADATA_KEY } from '@inventario/platform';
import { callContext } from '../src/grpc/handlers';

function callWith(entries: Array<[string, string | Buffer]>): ServerUnaryCall<unknown, unknown> {
  const metadata = new Metadata();
  for (const [key, value] of entries) metadata.set(key, value);
  return { metadata } as ServerUnaryCall<unknown, unknown>;
}

describe('callContext', () => {
  it.each<[string, Array<[string, string | Buffer]>, string]>([
    ['no metadata means internal work', [], 'system'],
    ['a blank user means internal work', [[USUARIO_METADATA_KEY, '   ']], 'system'],
    ['the ASCII key', [[USUARIO_METADATA_KEY, ' ana ']], 'ana'],
    ['the UTF-8 -bin key, for names outside ASCII', [[USUARIO_BIN_METADATA_KEY, Buffer.from('Iñaki 📦')]], 'Iñaki 📦'],
    [
      'the -bin key wins over the ASCII one',
      [
        [USUARIO_METADATA_KEY, 'x'],
        [USUARIO_BIN_METADATA_KEY, Buffer.from('José')],
      ],
      'José',
    ],
  ])('reads usuario: %s', (_, entries, usuario) => {
    expect(callContext(callWith(entries)).usuario).toBe(usuario);
  });

  it('cuts usuario at 255 characters without splitting a character', () => {
    const usuario = callContext(callWith([[USUARIO_BIN_METADATA_KEY, Buffer.from('📦'.repeat(300))]])).usuario;
    expect([...usuario]).toHaveLength(255);
    expect(usuario).toBe('📦'.repeat(255));
  });

  it('passes traceparent on, and omits it when absent', () => {
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    expect(callContext(callWith([['traceparent', traceparent]]))).toEqual({ usuario: 'system', traceparent });
    expect(callContext(callWith([]))).toEqual({ usuario: 'system' });
  });
});
