import { decodePageToken, pageSizeOf, requirePositiveIds, validateFields } from '@inventario/platform';

/**
 * Listing warehouses. Page size, page token and the id filter follow
 * platform's list rules (AIP-158, keyset by id), shared with producto-svc so
 * the BFF sees one behaviour.
 */

/** A validated list request. */
export interface BodegaQuery {
  pageSize: number;
  /** Continue after this id (from the page token); null for the first page. */
  afterId: number | null;
  /** When non-empty, only these warehouses (unknown ids are simply absent). */
  ids: number[];
}

/** A list request as it arrives: proto3 defaults (0, '') mean "not set". */
export interface BodegaQueryDraft {
  pageSize: number;
  pageToken: string;
  ids: number[];
}

/** Validates a list request, naming every bad field at once. */
export function validateBodegaQuery(draft: BodegaQueryDraft): BodegaQuery {
  return validateFields({
    pageSize: () => pageSizeOf(draft.pageSize),
    afterId: () => decodePageToken(draft.pageToken),
    ids: () => requirePositiveIds(draft.ids, 'ids'),
  });
}
