import { jsonCanonico, type Hecho } from '../domain/auditoria';

/** The envelope of §5.2 as the audit trail reads it: any producer's, ours included. */
export interface SobreEvento {
  id: string;
  eventType: string;
  subject: string;
  eventTime: string;
  data: Record<string, unknown>;
}

const texto = (value: unknown): string => (typeof value === 'string' ? value : '');
const id = (value: unknown): number | null =>
  typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : null;

/** identidad-svc's token events, whose `data.tokenId` is the record's, not the author's. */
const TOKEN_EVENTS = /\.Inventario\.Token(Creado|Revocado)$/;

/**
 * One audit row per event: who (the audit block of §5.3, and the principal
 * fields when the producer sends them), what (the type and the record) and
 * the data itself, canonical. Events carry no secrets (§12.4), so neither
 * does the row.
 */
export function hechoDeEvento(envelope: SobreEvento): Hecho {
  const { data } = envelope;
  const usuario = texto(data.usuario);
  const accion = envelope.eventType.includes('.Inventario.')
    ? envelope.eventType.slice(envelope.eventType.lastIndexOf('.Inventario.') + 12)
    : envelope.eventType;
  // eventTime is UTC without a zone (§2.1); an unparsable one falls back to now rather than losing the row.
  const ocurrido = new Date(`${envelope.eventTime}Z`);
  return {
    eventoId: envelope.id,
    accion: accion.slice(0, 64),
    recurso: envelope.subject.slice(0, 255),
    principalId: id(data.principalId),
    usuario: [...usuario].slice(0, 255).join(''),
    metodoAuth: texto(data.metodoAuth) || (usuario === 'system' ? 'system' : ''),
    // A token event names its own token `tokenId` and the author's `autorTokenId` (§12.4).
    tokenId: id(TOKEN_EVENTS.test(envelope.eventType) ? data.autorTokenId : data.tokenId),
    requestId: texto(data.requestId).slice(0, 255),
    direccion: '',
    datos: jsonCanonico(data),
    ocurridoEn: Number.isNaN(ocurrido.getTime()) ? new Date() : ocurrido,
  };
}
