import {
  decodePageToken,
  InvalidArgumentError,
  pageSizeOf,
  requirePositiveIds,
  validateFields,
} from '@inventario/platform';
import { MAX_NOMBRE_CHARS, MENSAJES } from './producto';

/**
 * Listing products. Page size, page token and the id filter follow
 * platform's list rules (AIP-158, keyset by id), shared with bodega-svc so
 * the BFF sees one behaviour; `skip` and `nombre_contains` are this
 * resource's own.
 */

/** A validated list request. */
export interface ProductoQuery {
  pageSize: number;
  /** Continue after this id (from the page token); null for the first page. */
  afterId: number | null;
  /** Matching rows to skip before the page starts. */
  skip: number;
  /** When non-empty, only products assigned to one of these warehouses. */
  bodegaIds: number[];
  /** When non-empty, only these products (a batch lookup; unknown ids are simply absent). */
  ids: number[];
  /** When non-null, only products whose nombre contains it (case-insensitive). */
  nombreContains: string | null;
  /** Count every matching product too (ListProductosResponse.total_size). */
  includeTotalSize: boolean;
  /** Read `descripcion` (up to 64 KiB a row): false when the request's read_mask leaves it out. */
  conDescripcion: boolean;
  /** At most this many products of each warehouse of `bodegaIds`, those after `desdeId`; absent: no limit. */
  porBodega?: { max: number; desdeId: number | null };
}

/** A list request as it arrives: proto3 defaults (0, '') mean "not set". */
export interface ProductoQueryDraft {
  pageSize: number;
  pageToken: string;
  skip: number;
  bodegaIds: number[];
  ids: number[];
  nombreContains: string;
  includeTotalSize?: boolean;
  /** ListProductosRequest.read_mask's paths; absent or empty: every field. */
  readMask?: string[];
  /** 0 (or absent): no limit per warehouse. */
  perBodega?: number;
  perBodegaAfterId?: number;
}

function skipOf(skip: number): number {
  if (!Number.isInteger(skip) || skip < 0) throw InvalidArgumentError.field('skip', MENSAJES.negativo);
  return skip;
}

function nombreContainsOf(text: string): string | null {
  if ([...text].length > MAX_NOMBRE_CHARS) throw InvalidArgumentError.field('nombreContains', MENSAJES.nombreLargo);
  return text === '' ? null : text;
}

/** Validates a list request, naming every offending field. */
export function validateProductoQuery(draft: ProductoQueryDraft): ProductoQuery {
  return validateFields({
    pageSize: () => pageSizeOf(draft.pageSize),
    afterId: () => decodePageToken(draft.pageToken),
    skip: () => skipOf(draft.skip),
    bodegaIds: () => requirePositiveIds(draft.bodegaIds, 'bodegaIds'),
    ids: () => requirePositiveIds(draft.ids, 'ids'),
    nombreContains: () => nombreContainsOf(draft.nombreContains),
    includeTotalSize: () => draft.includeTotalSize === true,
    conDescripcion: () => !draft.readMask || draft.readMask.length === 0 || draft.readMask.includes('descripcion'),
    porBodega: () => porBodegaOf(draft),
  });
}

/** A limit per warehouse needs the warehouses it counts in. */
function porBodegaOf(draft: ProductoQueryDraft): ProductoQuery['porBodega'] {
  if (!draft.perBodega) return undefined;
  if (draft.bodegaIds.length === 0) throw InvalidArgumentError.field('perBodega', MENSAJES.perBodegaSinBodegas);
  return { max: draft.perBodega, desdeId: draft.perBodegaAfterId ?? null };
}
