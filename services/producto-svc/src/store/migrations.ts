import {
  createDeletionRecord,
  createIdempotencyTable,
  createOutboxTables,
  dropDeletionRecord,
  dropIdempotencyTable,
  dropOutboxTables,
  type Migration,
} from '@inventario/platform';

/** Never edit a shipped migration; add a new one. */
export const migrations: Record<string, Migration> = {
  '0001_create_productos': {
    async up(db) {
      await db.schema.createTable('productos', (t) => {
        t.engine('InnoDB');
        t.charset('utf8mb4');
        // Case-insensitive collation: ListProductos' nombre_contains relies on it.
        t.collate('utf8mb4_unicode_ci');
        t.increments('id');
        t.string('nombre', 255).notNullable();
        t.text('descripcion').nullable();
        t.decimal('precio', 10, 2).notNullable();
        t.integer('cantidad_en_stock').notNullable().defaultTo(0);
        // No foreign key: warehouses live in bodega-svc's database (see the BodegaEliminada consumer).
        t.integer('bodega_id').unsigned().nullable().index('productos_bodega_id_idx');
        t.dateTime('fecha_creacion').notNullable();
        t.dateTime('fecha_actualizacion').notNullable();
      });
    },
    async down(db) {
      await db.schema.dropTableIfExists('productos');
    },
  },
  '0002_create_outbox': {
    up: createOutboxTables,
    down: dropOutboxTables,
  },
  // utf8mb4_unicode_ci weighs all characters outside the BMP alike, so "🍎" also found "🍌".
  '0003_productos_unicode_520': {
    async up(db) {
      await db.raw('ALTER TABLE productos CONVERT TO CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_520_ci');
    },
    async down(db) {
      await db.raw('ALTER TABLE productos CONVERT TO CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci');
    },
  },
  // For conditional writes (If-Match); existing rows start at 1, as a new product does.
  '0004_productos_version': {
    async up(db) {
      await db.schema.alterTable('productos', (t) => {
        t.integer('version').unsigned().notNullable().defaultTo(1);
      });
    },
    async down(db) {
      await db.schema.alterTable('productos', (t) => {
        t.dropColumn('version');
      });
    },
  },
  '0005_idempotency_keys': {
    up: createIdempotencyTable,
    down: dropIdempotencyTable,
  },
  // A write naming a deleted warehouse is refused, so no product points at one for good.
  '0006_bodegas_eliminadas': {
    async up(db) {
      await db.schema.createTable('bodegas_eliminadas', (t) => {
        t.engine('InnoDB');
        t.integer('bodega_id').unsigned().primary();
        t.dateTime('eliminada_en', { precision: 3 }).notNullable().defaultTo(db.raw('CURRENT_TIMESTAMP(3)'));
      });
    },
    async down(db) {
      await db.schema.dropTableIfExists('bodegas_eliminadas');
    },
  },
  // The products this service deleted (a trigger records each), so bodega-svc
  // can tell a deleted product from one never created (GetProductoEliminado).
  '0007_eliminaciones': {
    up: (db) => createDeletionRecord(db, 'productos'),
    down: (db) => dropDeletionRecord(db, 'productos'),
  },
  // One answer (issue 23, docs/contract.md §10.6): the products that existed before are 0 (their
  // cantidad_en_stock is still to be recorded in bodega-svc's ledger, stock-al-libro.ts), every
  // product created since is 1 (its create recorded its units). The default moves after the column
  // is added, so existing rows keep 0 without an UPDATE of the whole table.
  '0008_stock_migrado': {
    async up(db) {
      await db.raw(
        'ALTER TABLE productos ADD COLUMN stock_migrado BOOLEAN NOT NULL DEFAULT FALSE, ADD INDEX ' +
          'productos_stock_migrado_idx (stock_migrado, id)',
      );
      await db.raw('ALTER TABLE productos ALTER COLUMN stock_migrado SET DEFAULT TRUE');
    },
    async down(db) {
      await db.raw('ALTER TABLE productos DROP INDEX productos_stock_migrado_idx, DROP COLUMN stock_migrado');
    },
  },
};
