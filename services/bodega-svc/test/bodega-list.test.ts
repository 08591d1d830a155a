/**
 * Component tests of ListBodegas: keyset pagination with opaque tokens and
 * the `ids` filter used for batch lookups.
 */
import { status } from '@grpc/grpc-js';
import { fieldViolationsOf, PAGE_BYTE_BUDGET } from '@inventario/platform';
import { ListBodegasResponse, type Bodega } from '@inventario/proto';
import { grpcError, startTestService, type TestService } from './support/test-service';

let svc: TestService;
/** The warehouses of this file, in id order. */
const creadas: Bodega[] = [];

beforeAll(async () => {
  svc = await startTestService('bodega_list');
  for (let i = 1; i <= 7; i++) {
    const res = await svc.rpc.createBodega({ nombre: `Lista ${i}`, capacidad: i * 10, ubicacion: `Zona ${i}` });
    if (res.bodega) creadas.push(res.bodega);
  }
});

afterAll(async () => {
  await svc?.close();
});

describe('ListBodegas', () => {
  it('lists every warehouse in id order on one page by default', async () => {
    const res = await svc.rpc.listBodegas({ pageSize: 0, pageToken: '', ids: [] });
    expect(res.bodegas).toEqual(creadas);
    expect(res.nextPageToken).toBe('');
  });

  it('walks all pages with next page tokens, without gaps or repeats', async () => {
    const vistos: Bodega[] = [];
    const tokens: string[] = [];
    let pageToken = '';
    do {
      const res = await svc.rpc.listBodegas({ pageSize: 3, pageToken, ids: [] });
      expect(res.bodegas.length).toBeLessThanOrEqual(3);
      vistos.push(...res.bodegas);
      pageToken = res.nextPageToken;
      if (pageToken) tokens.push(pageToken);
    } while (pageToken);

    expect(vistos).toEqual(creadas);
    expect(tokens).toHaveLength(2);
  });

  it('gives an empty next page token when the last page is exactly full', async () => {
    const first = await svc.rpc.listBodegas({ pageSize: 4, pageToken: '', ids: [] });
    const second = await svc.rpc.listBodegas({ pageSize: 3, pageToken: first.nextPageToken, ids: [] });
    expect(second.bodegas).toEqual(creadas.slice(4));
    expect(second.nextPageToken).toBe('');
  });

  it('keeps a page token valid when the last row it saw is deleted', async () => {
    const a = (await svc.rpc.createBodega({ nombre: 'Efímera A', capacidad: 1 })).bodega;
    const b = (await svc.rpc.createBodega({ nombre: 'Efímera B', capacidad: 1 })).bodega;
    if (!a || !b) throw new Error('CreateBodega answered without a bodega');
    const ids = [a.id, b.id];

    const first = await svc.rpc.listBodegas({ pageSize: 1, pageToken: '', ids });
    await svc.rpc.deleteBodega({ id: a.id });
    const second = await svc.rpc.listBodegas({ pageSize: 1, pageToken: first.nextPageToken, ids });

    expect(first.bodegas.map((x) => x.id)).toEqual([a.id]);
    expect(second.bodegas.map((x) => x.id)).toEqual([b.id]);
    await svc.rpc.deleteBodega({ id: b.id });
  });

  it('returns only the requested ids, ignoring unknown ones and repeats', async () => {
    const wanted = [creadas[5]?.id ?? 0, creadas[2]?.id ?? 0, 999_999, creadas[5]?.id ?? 0];
    const res = await svc.rpc.listBodegas({ pageSize: 0, pageToken: '', ids: wanted });
    expect(res.bodegas).toEqual([creadas[2], creadas[5]]);
    expect(res.nextPageToken).toBe('');
  });

  it('paginates a filtered listing too', async () => {
    const ids = [creadas[1]?.id ?? 0, creadas[3]?.id ?? 0, creadas[6]?.id ?? 0];
    const first = await svc.rpc.listBodegas({ pageSize: 2, pageToken: '', ids });
    const second = await svc.rpc.listBodegas({ pageSize: 2, pageToken: first.nextPageToken, ids });
    expect(first.bodegas).toEqual([creadas[1], creadas[3]]);
    expect(second.bodegas).toEqual([creadas[6]]);
    expect(second.nextPageToken).toBe('');
  });

  it.each<[string, { pageSize: number; pageToken: string; ids: number[] }, string]>([
    ['a negative page size', { pageSize: -1, pageToken: '', ids: [] }, 'pageSize'],
    ['a malformed page token', { pageSize: 0, pageToken: 'no-es-un-token', ids: [] }, 'pageToken'],
    ['a page token that is not base64url', { pageSize: 0, pageToken: '***', ids: [] }, 'pageToken'],
    ['a non-positive id in the filter', { pageSize: 0, pageToken: '', ids: [1, 0] }, 'ids'],
    [
      'more than 1000 distinct ids in the filter',
      { pageSize: 0, pageToken: '', ids: Array.from({ length: 1001 }, (_, i) => i + 1) },
      'ids',
    ],
  ])('answers INVALID_ARGUMENT for %s', async (_name, request, campo) => {
    const err = await grpcError(svc.rpc.listBodegas(request));
    expect(err.code).toBe(status.INVALID_ARGUMENT);
    expect(fieldViolationsOf(err).map((v) => v.campo)).toEqual([campo]);
  });

  it('names every offending list field at once', async () => {
    const err = await grpcError(svc.rpc.listBodegas({ pageSize: -1, pageToken: '***', ids: [0] }));
    expect(err.code).toBe(status.INVALID_ARGUMENT);
    expect(fieldViolationsOf(err).map((v) => v.campo)).toEqual(['pageSize', 'pageToken', 'ids']);
  });
});

describe('ListBodegas byte budget', () => {
  it('ends a page early once it holds the byte budget, page_size being a maximum, and the tokens still walk every warehouse', async () => {
    // 600 warehouses with the longest texts allowed (255 four-byte characters each): ~1.2 MB in all.
    const at = new Date();
    const rows = Array.from({ length: 600 }, (_, i) => ({
      nombre: `${String(i).padStart(4, '0')}${'🏭'.repeat(251)}`,
      ubicacion: '🗺'.repeat(255),
      capacidad: 1,
      fecha_creacion: at,
      fecha_actualizacion: at,
    }));
    await svc.db('bodegas').insert(rows);
    const ids = (await svc.db('bodegas').where('nombre', 'like', '____🏭%').orderBy('id').pluck('id')).map(Number);
    try {
      expect(ids).toHaveLength(600);
      const vistas: number[] = [];
      const pages: { items: number; bytes: number }[] = [];
      let pageToken = '';
      do {
        const res = await svc.rpc.listBodegas({ pageSize: 1000, pageToken, ids });
        vistas.push(...res.bodegas.map((b) => b.id));
        pages.push({ items: res.bodegas.length, bytes: ListBodegasResponse.encode(res).finish().length });
        pageToken = res.nextPageToken;
      } while (pageToken);

      expect(vistas).toEqual(ids);
      expect(pages.length).toBeGreaterThan(1);
      expect(pages[0]!.items).toBeLessThan(600);
      for (const page of pages) expect(page.bytes).toBeLessThan(PAGE_BYTE_BUDGET + 3000);
    } finally {
      await svc.db('bodegas').whereIn('id', ids).del();
    }
  });
});
