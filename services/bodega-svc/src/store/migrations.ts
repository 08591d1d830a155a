import { createIdempotencyTable, createOutboxTables, dropIdempotencyTable, dropOutboxTables, type Knex, type Migration } from '@inventario/platform';

/** Name of the unique index on `bodegas.nombre`; the store recognises its duplicate-key errors by it. */
export const NOMBRE_UNIQUE_INDEX = 'bodegas_nombre_unique';

/**
 * The schema of inventario_bodega, applied in name order at start.
 * Never edit a shipped migration; add a new one.
 */
export const migrations: Record<string, Migration> = {
  '0001_bodegas_y_outbox': {
    async up(db: Knex) {
      await db.schema.createTable('bodegas', (t) => {
        t.increments('id').unsigned().primary();
        // Uniqueness follows the collation, utf8mb4_unicode_ci: names that
        // differ only in case or accents ("Almacén Sur", "almacen sur") are
        // the same warehouse to a person, so they are duplicates here too.
        // The collation is pinned on the table so it does not depend on how
        // the database was created.
        t.string('nombre', 255).notNullable();
        t.unique(['nombre'], { indexName: NOMBRE_UNIQUE_INDEX });
        t.string('ubicacion', 255).nullable();
        t.integer('capacidad').notNullable();
        // Whole seconds, UTC (the connection runs with timezone 'Z').
        t.dateTime('fecha_creacion').notNullable();
        t.dateTime('fecha_actualizacion').notNullable();
        t.charset('utf8mb4');
        t.collate('utf8mb4_unicode_ci');
      });
      await createOutboxTables(db);
    },
    async down(db: Knex) {
      await dropOutboxTables(db);
      await db.schema.dropTableIfExists('bodegas');
    },
  },
  // utf8mb4_unicode_ci gives every character outside the Basic Multilingual
  // Plane the same weight, so "Bodega 🍎" and "Bodega 🍌" collided as
  // duplicates. The UCA 5.2.0 collation tells them apart and stays case- and
  // accent-insensitive (MariaDB 10.x and MySQL 8 both have it).
  '0002_nombre_unicode_520': {
    async up(db: Knex) {
      await db.raw('ALTER TABLE bodegas CONVERT TO CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_520_ci');
    },
    async down(db: Knex) {
      await db.raw('ALTER TABLE bodegas CONVERT TO CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci');
    },
  },
  // Every warehouse carries a version for conditional writes (If-Match);
  // existing rows start at 1, as a new warehouse does.
  '0003_bodegas_version': {
    async up(db: Knex) {
      await db.schema.alterTable('bodegas', (t) => {
        t.integer('version').unsigned().notNullable().defaultTo(1);
      });
    },
    async down(db: Knex) {
      await db.schema.alterTable('bodegas', (t) => {
        t.dropColumn('version');
      });
    },
  },
  // Idempotency keys (request_id) and the results they replay.
  '0004_idempotency_keys': {
    up: createIdempotencyTable,
    down: dropIdempotencyTable,
  },
};
