import { InvalidArgumentError, type FieldViolation } from '@inventario/platform';
import {
  decodePageToken,
  DEFAULT_PAGE_SIZE,
  encodePageToken,
  MAX_PAGE_SIZE,
  validateProductoQuery,
  type ProductoQueryDraft,
} from '../src/domain/listing';

// Pure unit tests of list requests and page tokens.

const EMPTY: ProductoQueryDraft = { pageSize: 0, pageToken: '', skip: 0, bodegaIds: [], nombreContains: '' };

function violationsOf(draft: Partial<ProductoQueryDraft>): FieldViolation[] {
  try {
    validateProductoQuery({ ...EMPTY, ...draft });
  } catch (err) {
    if (err instanceof InvalidArgumentError) return err.violations;
    throw err;
  }
  return [];
}

describe('page tokens', () => {
  it.each([1, 42, 4_294_967_295])('round-trip the last id %d', (id) => {
    const token = encodePageToken(id);
    expect(token).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodePageToken(token)).toBe(id);
  });

  it.each(['', 'MA', '!!!', encodePageToken(5) + '=', Buffer.from('-3').toString('base64url'), Buffer.from('12a').toString('base64url')])(
    'rejects the malformed token %p',
    (token) => {
      expect(decodePageToken(token)).toBeUndefined();
    },
  );
});

describe('validateProductoQuery', () => {
  it('applies the defaults of an empty request', () => {
    expect(validateProductoQuery(EMPTY)).toEqual({
      pageSize: DEFAULT_PAGE_SIZE,
      afterId: null,
      skip: 0,
      bodegaIds: [],
      nombreContains: null,
    });
  });

  it('caps page_size at the maximum instead of failing', () => {
    expect(validateProductoQuery({ ...EMPTY, pageSize: 5000 }).pageSize).toBe(MAX_PAGE_SIZE);
  });

  it('continues after the id of the page token, with the filters given', () => {
    expect(
      validateProductoQuery({ pageSize: 10, pageToken: encodePageToken(30), skip: 2, bodegaIds: [4, 4, 9], nombreContains: 'silla' }),
    ).toEqual({ pageSize: 10, afterId: 30, skip: 2, bodegaIds: [4, 9], nombreContains: 'silla' });
  });

  it.each<[string, Partial<ProductoQueryDraft>, string]>([
    ['negative page_size', { pageSize: -1 }, 'pageSize'],
    ['negative skip', { skip: -5 }, 'skip'],
    ['malformed page_token', { pageToken: 'xyz' }, 'pageToken'],
    ['bodega id 0', { bodegaIds: [3, 0] }, 'bodegaIds'],
    ['search text over 255 characters', { nombreContains: 'a'.repeat(256) }, 'nombreContains'],
  ])('rejects a %s', (_case, draft, campo) => {
    expect(violationsOf(draft).map((v) => v.campo)).toEqual([campo]);
  });
});
