/** The exact reading of JSON number texts is platform's field rule (field-rules.ts), shared with the services. */
export {
  FIELD_MENSAJES as NUMBER_MENSAJES,
  integerFromNumberText,
  MAX_INT32,
  MAX_NUMBER_TEXT,
  precioFromNumberText,
} from '@inventario/platform';
