/// <reference lib="es2024.string" />

/**
 * A lone UTF-16 surrogate (`"\ud800"` in JSON) has no UTF-8 form: protobuf would silently store
 * U+FFFD, not what the client sent, so such text is refused, naming the field (docs/contract.md §2.5).
 */
export const TEXTO_MENSAJES = {
  malFormado: 'contiene un carácter no válido (un sustituto UTF-16 suelto): envíe texto Unicode bien formado',
} as const;

export function isWellFormedText(text: string): boolean {
  return text.isWellFormed();
}
