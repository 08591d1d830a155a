import { FIELD_MENSAJES } from '@inventario/platform';

/**
 * Text the BFF passes on must be well-formed Unicode: a lone UTF-16
 * surrogate has no UTF-8 form and would reach a service as U+FFFD, so it is
 * refused on every surface, naming the field (platform's field rules).
 */
export const TEXTO_MENSAJES = { malFormado: FIELD_MENSAJES.malFormado } as const;
