import type { Knex } from '@inventario/platform';

// The states as this migration wrote them into the CHECK: a migration is history, so it keeps its own list
// rather than @inventario/contract's ESTADOS_RESERVA, which may grow (additively) after it.
const ESTADOS_RESERVA = ['ACTIVA', 'CONSUMIDA', 'LIBERADA', 'EXPIRADA', 'DESCUBIERTA'] as const;

/**
 * Reservations (issue 24; docs/decisions.md "Reservations with an exact expiry").
 *
 * - `existencias.reservada`: units of the level held by active holds,
 *   CHECK 0 <= reservada <= cantidad, so no write, whatever its path, can
 *   oversell a hold or hold units that are not there.
 * - `reservas`: one per hold; `referencia_activa` is the referencia while
 *   ACTIVA and NULL after, and unique: at most one active reservation per
 *   referencia. `expira_en` is the database clock's, to the microsecond.
 * - `reserva_lineas`: one per level (lines of one level are aggregated);
 *   `retenida` is what the line still holds, and each level's `reservada`
 *   is the sum of its lines' `retenida` (the verification checks it).
 * - `reserva_consumos`: each consumption, pointing at its SALIDA operation.
 * - `reserva_terminales`: the reservation's one terminal transition; its
 *   primary key makes a second one impossible, even with a bug upstream.
 */
export async function crearReservas(db: Knex): Promise<void> {
  await db.raw(
    `ALTER TABLE existencias ADD COLUMN reservada INT NOT NULL DEFAULT 0,
       ADD CONSTRAINT existencias_reservada_check CHECK (reservada >= 0 AND reservada <= cantidad)`,
  );
  await db.schema.createTable('reservas', (t) => {
    t.engine('InnoDB');
    t.bigIncrements('id').unsigned().primary();
    t.string('referencia', 255).notNullable();
    t.string('estado', 16).notNullable();
    t.specificType('expira_en', 'DATETIME(6)').notNullable();
    t.integer('version').unsigned().notNullable();
    t.string('usuario', 255).notNullable();
    t.string('comentario', 500).nullable();
    t.specificType('fecha_creacion', 'DATETIME(6)').notNullable();
    t.specificType('fecha_actualizacion', 'DATETIME(6)').notNullable();
    t.index(['referencia', 'id'], 'reservas_referencia_idx');
    t.index(['estado', 'expira_en'], 'reservas_estado_expira_idx');
    t.check(`estado IN (${ESTADOS_RESERVA.map((e) => `'${e}'`).join(', ')})`, [], 'reservas_estado_check');
    t.charset('utf8mb4');
    t.collate('utf8mb4_bin');
  });
  await db.raw(
    `ALTER TABLE reservas ADD COLUMN referencia_activa VARCHAR(255) AS (IF(estado = 'ACTIVA', referencia, NULL)) STORED,
       ADD CONSTRAINT reservas_referencia_activa_unique UNIQUE (referencia_activa)`,
  );
  await db.schema.createTable('reserva_lineas', (t) => {
    t.engine('InnoDB');
    t.bigIncrements('id').unsigned().primary();
    t.bigInteger('reserva_id').unsigned().notNullable().references('id').inTable('reservas');
    t.integer('bodega_id').unsigned().notNullable();
    t.integer('producto_id').unsigned().notNullable();
    t.integer('cantidad').notNullable();
    t.integer('consumida').notNullable().defaultTo(0);
    t.integer('retenida').notNullable();
    t.unique(['reserva_id', 'bodega_id', 'producto_id'], { indexName: 'reserva_lineas_nivel_unique' });
    t.index(['bodega_id', 'producto_id', 'retenida'], 'reserva_lineas_nivel_idx');
    t.check(
      'cantidad > 0 AND consumida >= 0 AND retenida >= 0 AND consumida + retenida <= cantidad',
      [],
      'reserva_lineas_cantidades_check',
    );
  });
  await db.schema.createTable('reserva_consumos', (t) => {
    t.engine('InnoDB');
    t.bigIncrements('id').unsigned().primary();
    t.bigInteger('reserva_id').unsigned().notNullable().references('id').inTable('reservas');
    t.bigInteger('linea_id').unsigned().notNullable().references('id').inTable('reserva_lineas');
    t.bigInteger('operacion_id').unsigned().notNullable().references('id').inTable('operaciones');
    t.integer('cantidad').notNullable();
    t.specificType('fecha', 'DATETIME(6)').notNullable();
    t.check('cantidad > 0', [], 'reserva_consumos_cantidad_check');
  });
  await db.schema.createTable('reserva_terminales', (t) => {
    t.engine('InnoDB');
    t.bigInteger('reserva_id').unsigned().primary().references('id').inTable('reservas');
    t.string('estado', 16).notNullable();
    t.specificType('fecha', 'DATETIME(6)').notNullable();
  });
}

export async function quitarReservas(db: Knex): Promise<void> {
  await db.schema.dropTableIfExists('reserva_terminales');
  await db.schema.dropTableIfExists('reserva_consumos');
  await db.schema.dropTableIfExists('reserva_lineas');
  await db.schema.dropTableIfExists('reservas');
  await db.raw('ALTER TABLE existencias DROP CONSTRAINT existencias_reservada_check, DROP COLUMN reservada');
}
