import { FIELD_MENSAJES } from '@inventario/platform';

/**
 * A lone UTF-16 surrogate (`"\ud800"` in JSON) has no UTF-8 form: protobuf would silently store
 * U+FFFD, not what the client sent, so such text is refused, naming the field (docs/contract.md §2.5).
 */
export const TEXTO_MENSAJES = { malFormado: FIELD_MENSAJES.malFormado } as const;
