/// <reference lib="es2024.string" />

/**
 * Text the BFF passes on must be well-formed Unicode. JSON can carry a lone
 * UTF-16 surrogate (`"\ud800"`), which has no UTF-8 form: on its way to a
 * service (protobuf strings are UTF-8) it would silently become U+FFFD, so
 * the record would store something other than what the client sent. Such
 * text is refused instead, naming the field, on every surface.
 */
export const TEXTO_MENSAJES = {
  malFormado: 'contiene un carácter no válido (un sustituto UTF-16 suelto): envíe texto Unicode bien formado',
} as const;

/** Whether `text` holds no lone surrogate (Node 20's String.prototype.isWellFormed). */
export function isWellFormedText(text: string): boolean {
  return text.isWellFormed();
}
