// What the stock verification adds for holds (docs/contract.md §13): each check a query, a difference reported,
// never corrected.

import { withDbErrors, type Knex } from '@inventario/platform';

export interface DiferenciaReserva {
  tipo: 'RESERVADA' | 'CONSUMIDA' | 'CONSUMO_TRAS_EXPIRACION' | 'REFERENCIA_ACTIVA' | 'TRANSICION';
  reservaId: number | null;
  bodegaId: number;
  productoId: number;
  registrado: number;
  calculado: number;
}

export async function verificar(db: Knex): Promise<DiferenciaReserva[]> {
  const consultas: [DiferenciaReserva['tipo'], string][] = [
    [
      'RESERVADA',
      `SELECT NULL AS reserva_id, e.bodega_id, e.producto_id, e.reservada AS registrado, ` +
        `COALESCE(SUM(l.retenida), 0) AS calculado
         FROM existencias e LEFT JOIN reserva_lineas l ON l.bodega_id = e.bodega_id AND ` +
        `l.producto_id = e.producto_id
         GROUP BY e.id HAVING registrado <> calculado`,
    ],
    [
      'CONSUMIDA',
      `SELECT l.reserva_id, l.bodega_id, l.producto_id, l.consumida AS registrado, ` +
        `COALESCE(SUM(c.cantidad), 0) AS calculado
         FROM reserva_lineas l LEFT JOIN reserva_consumos c ON c.linea_id = l.id GROUP BY l.id HAVING ` +
        `registrado <> calculado`,
    ],
    [
      'CONSUMO_TRAS_EXPIRACION',
      `SELECT c.reserva_id, l.bodega_id, l.producto_id, c.cantidad AS registrado, 0 AS calculado
         FROM reserva_consumos c JOIN reservas r ON r.id = c.reserva_id JOIN reserva_lineas l ON l.id = ` +
        `c.linea_id WHERE c.fecha >= r.expira_en`,
    ],
    [
      'REFERENCIA_ACTIVA',
      `SELECT MIN(r.id) AS reserva_id, 0 AS bodega_id, 0 AS producto_id, COUNT(*) AS registrado, 1 AS calculado
         FROM reservas r WHERE r.estado = 'ACTIVA' GROUP BY r.referencia HAVING COUNT(*) > 1`,
    ],
    [
      'TRANSICION',
      `SELECT r.id AS reserva_id, 0 AS bodega_id, 0 AS producto_id, COUNT(t.reserva_id) AS registrado, ` +
        `IF(r.estado = 'ACTIVA', 0, 1) AS calculado
         FROM reservas r LEFT JOIN reserva_terminales t ON t.reserva_id = r.id AND t.estado = r.estado
         GROUP BY r.id HAVING registrado <> calculado
       UNION ALL
       SELECT l.reserva_id, l.bodega_id, l.producto_id, l.retenida AS registrado, 0 AS calculado
         FROM reserva_lineas l JOIN reservas r ON r.id = l.reserva_id WHERE r.estado <> 'ACTIVA' ` +
        `AND l.retenida > 0`,
    ],
  ];
  const out: DiferenciaReserva[] = [];
  for (const [tipo, sql] of consultas) {
    const [rows] = (await withDbErrors(() => db.raw(`${sql} LIMIT 100`))) as [
      {
        reserva_id: number | string | null;
        bodega_id: number;
        producto_id: number;
        registrado: number | string;
        calculado: number | string;
      }[],
    ];
    for (const r of rows) {
      out.push({
        tipo,
        reservaId: r.reserva_id === null ? null : Number(r.reserva_id),
        bodegaId: Number(r.bodega_id),
        productoId: Number(r.producto_id),
        registrado: Number(r.registrado),
        calculado: Number(r.calculado),
      });
    }
  }
  return out;
}
