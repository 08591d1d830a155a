import {
  DEFAULT_PAGE_SIZE,
  encodePageToken,
  InvalidArgumentError,
  MAX_PAGE_SIZE,
  type FieldViolation,
} from '@inventario/platform';
import { validateProductoQuery, type ProductoQueryDraft } from '../src/domain/listing';

// Pure unit tests of list requests. Page sizes, page tokens and id filters are
// platform's rules, table-tested in packages/platform/test.

const EMPTY: ProductoQueryDraft = { pageSize: 0, pageToken: '', skip: 0, bodegaIds: [], ids: [], nombreContains: '' };

function violationsOf(draft: Partial<ProductoQueryDraft>): FieldViolation[] {
  try {
    validateProductoQuery({ ...EMPTY, ...draft });
  } catch (err) {
    if (err instanceof InvalidArgumentError) return err.violations;
    throw err;
  }
  return [];
}

describe('validateProductoQuery', () => {
  it('applies the defaults of an empty request', () => {
    expect(validateProductoQuery(EMPTY)).toEqual({
      pageSize: DEFAULT_PAGE_SIZE,
      afterId: null,
      skip: 0,
      bodegaIds: [],
      ids: [],
      nombreContains: null,
      includeTotalSize: false,
      conDescripcion: true,
    });
  });

  it('caps page_size at the maximum instead of failing', () => {
    expect(validateProductoQuery({ ...EMPTY, pageSize: 5000 }).pageSize).toBe(MAX_PAGE_SIZE);
  });

  it('continues after the id of the page token, with the filters given', () => {
    expect(
      validateProductoQuery({
        pageSize: 10,
        pageToken: encodePageToken(30),
        skip: 2,
        bodegaIds: [4, 4, 9],
        ids: [7, 3, 7],
        nombreContains: 'silla',
      }),
    ).toEqual({
      pageSize: 10,
      afterId: 30,
      skip: 2,
      bodegaIds: [4, 9],
      ids: [7, 3],
      nombreContains: 'silla',
      includeTotalSize: false,
      conDescripcion: true,
    });
  });

  it.each<[string, Partial<ProductoQueryDraft>, string]>([
    ['negative page_size', { pageSize: -1 }, 'pageSize'],
    ['negative skip', { skip: -5 }, 'skip'],
    ['malformed page_token', { pageToken: 'xyz' }, 'pageToken'],
    ['bodega id 0', { bodegaIds: [3, 0] }, 'bodegaIds'],
    ['bodega filter of more than 1000 ids', { bodegaIds: Array.from({ length: 1001 }, (_, i) => i + 1) }, 'bodegaIds'],
    ['product id 0', { ids: [0] }, 'ids'],
    ['product filter of more than 1000 ids', { ids: Array.from({ length: 1001 }, (_, i) => i + 1) }, 'ids'],
    ['search text over 255 characters', { nombreContains: 'a'.repeat(256) }, 'nombreContains'],
  ])('rejects a %s', (_case, draft, campo) => {
    expect(violationsOf(draft).map((v) => v.campo)).toEqual([campo]);
  });

  it('names every offending field at once', () => {
    const draft = {
      pageSize: -1,
      pageToken: 'xyz',
      skip: -1,
      bodegaIds: [0],
      ids: [-1],
      nombreContains: 'a'.repeat(256),
    };
    expect(violationsOf(draft).map((v) => v.campo)).toEqual([
      'pageSize',
      'pageToken',
      'skip',
      'bodegaIds',
      'ids',
      'nombreContains',
    ]);
  });
});
