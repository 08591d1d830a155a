import {
  createDeletionRecord,
  createIdempotencyTable,
  createOutboxTables,
  dropDeletionRecord,
  dropIdempotencyTable,
  dropOutboxTables,
  type Knex,
  type Migration,
} from '@inventario/platform';
import { MOTIVOS_MOVIMIENTO, TIPOS_MOVIMIENTO, TIPOS_OPERACION } from '@inventario/contract';
import { crearTramosSalidas, quitarTramosSalidas } from './ocupacion';
import { crearReservas, quitarReservas } from './reservas-migration';

/** Name of the unique index on `bodegas.nombre`; the store recognises its duplicate-key errors by it. */
export const NOMBRE_UNIQUE_INDEX = 'bodegas_nombre_unique';

/** Never edit a shipped migration; add a new one. */
export const migrations: Record<string, Migration> = {
  '0001_bodegas_y_outbox': {
    async up(db: Knex) {
      await db.schema.createTable('bodegas', (t) => {
        t.increments('id').unsigned().primary();
        // Uniqueness follows the collation: "Almacén Sur" and "almacen sur" are one warehouse to a person.
        // Pinned on the table, so it does not depend on how the database was created.
        t.string('nombre', 255).notNullable();
        t.unique(['nombre'], { indexName: NOMBRE_UNIQUE_INDEX });
        t.string('ubicacion', 255).nullable();
        t.integer('capacidad').notNullable();
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
  // utf8mb4_unicode_ci weighs all characters outside the BMP alike, so "Bodega 🍎" and "Bodega 🍌" collided.
  '0002_nombre_unicode_520': {
    async up(db: Knex) {
      await db.raw('ALTER TABLE bodegas CONVERT TO CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_520_ci');
    },
    async down(db: Knex) {
      await db.raw('ALTER TABLE bodegas CONVERT TO CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci');
    },
  },
  // For conditional writes (If-Match); existing rows start at 1, as a new warehouse does.
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
  '0004_idempotency_keys': {
    up: createIdempotencyTable,
    down: dropIdempotencyTable,
  },
  '0005_existencias_y_libro': {
    up: createStockTables,
    down: dropStockTables,
  },
  // The warehouses this service deleted (a trigger records each), so producto-svc
  // can tell a deleted warehouse from one never created (GetBodegaEliminada).
  '0006_eliminaciones': {
    up: (db) => createDeletionRecord(db, 'bodegas'),
    down: (db) => dropDeletionRecord(db, 'bodegas'),
  },
  // A forced delete in bounded transactions (issue 21, items 6 and 7): the mark that freezes the
  // warehouse while it is being deleted, and what its write-out has taken so far, kept with the row
  // so any later call resumes it and reports the whole deletion.
  '0007_eliminacion_por_tramos': {
    async up(db: Knex) {
      await db.schema.alterTable('bodegas', (t) => {
        t.dateTime('eliminando_desde').nullable();
        t.integer('retiradas_niveles').unsigned().notNullable().defaultTo(0);
        t.bigInteger('retiradas_unidades').notNullable().defaultTo(0);
      });
    },
    async down(db: Knex) {
      await db.schema.alterTable('bodegas', (t) => {
        t.dropColumn('eliminando_desde');
        t.dropColumn('retiradas_niveles');
        t.dropColumn('retiradas_unidades');
      });
    },
  },
  '0008_una_respuesta': {
    up: createSinUbicar,
    down: dropSinUbicar,
  },
  // Issue 23: exits record their units in stripes instead of the warehouse row (ocupacion.ts);
  // existing warehouses get theirs empty, so their `ocupacion` stays what it was.
  '0009_ocupacion_por_tramos': {
    up: crearTramosSalidas,
    down: quitarTramosSalidas,
  },
  // The products this service knows exist (docs/decisions.md, "Stock has one home"): fed by
  // ProductoCreado and by asking producto-svc about an id not seen yet. Every product that ever
  // had stock here existed, so the levels and the ledger name the first ones.
  '0010_productos_conocidos': {
    async up(db: Knex) {
      await db.schema.createTable('productos_conocidos', (t) => {
        t.engine('InnoDB');
        t.integer('producto_id').unsigned().primary();
        t.dateTime('conocido_en', { precision: 3 }).notNullable().defaultTo(db.raw('CURRENT_TIMESTAMP(3)'));
      });
      await db.raw(
        `INSERT IGNORE INTO productos_conocidos (producto_id)
           SELECT producto_id FROM existencias UNION SELECT DISTINCT producto_id FROM movimientos`,
      );
    },
    down: (db) => db.schema.dropTableIfExists('productos_conocidos'),
  },
  // Issue 24: holds on levels with an exact expiry (reservas-migration.ts).
  '0011_reservas': {
    up: crearReservas,
    down: quitarReservas,
  },
  // Issue 26: who exactly made an operation (docs/contract.md §12.9): the verified principal's id, how it
  // authenticated and its token, beside `usuario`. NULL for operations from before and for calls without a
  // principal (legacy callers, the consumers' `system` work). Nullable columns at the end: an instant ALTER.
  '0012_operaciones_principal': {
    async up(db: Knex) {
      await db.raw(
        `ALTER TABLE operaciones ADD COLUMN principal_id INT UNSIGNED NULL,
           ADD COLUMN metodo_auth VARCHAR(16) NULL, ADD COLUMN token_id INT UNSIGNED NULL`,
      );
    },
    async down(db: Knex) {
      await db.raw('ALTER TABLE operaciones DROP COLUMN principal_id, DROP COLUMN metodo_auth, DROP COLUMN token_id');
    },
  },
  // Issue 24: a threshold may watch `disponible` (alertas-disponible.ts). Every existing level keeps watching its
  // units; `bajo_disponible` is the alert raised on `disponible`, kept so each edge is published once.
  '0013_alerta_sobre': {
    async up(db: Knex) {
      await db.raw(
        `ALTER TABLE existencias ADD COLUMN alerta_sobre VARCHAR(10) NOT NULL DEFAULT 'CANTIDAD',
           ADD COLUMN bajo_disponible TINYINT(1) NOT NULL DEFAULT 0,
           ADD CONSTRAINT existencias_alerta_sobre_check CHECK (alerta_sobre IN ('CANTIDAD', 'DISPONIBLE'))`,
      );
    },
    async down(db: Knex) {
      await db.raw(
        `ALTER TABLE existencias DROP CONSTRAINT existencias_alerta_sobre_check, DROP COLUMN bajo_disponible,
           DROP COLUMN alerta_sobre`,
      );
    },
  },
};

/**
 * The unlocated "location" of a product: bodega_id 0 in levels and lines, never a warehouse (docs/contract.md §10.6).
 */
export const SIN_UBICAR = 0;

/**
 * One answer to "how many" (issue 23, docs/decisions.md "One answer").
 *
 * - A product's units with no warehouse, or that did not fit its warehouse,
 *   are a level with bodega_id 0. The foreign key moves to a stored column
 *   that is NULL for it, so every other level still names a warehouse, and
 *   no `bodegas` row (hence no capacity, no occupancy) stands for it.
 * - `stock_inicial`: the product's units from before the ledger knew them
 *   (the `cantidadEnStock` it was created with, or the migration of the old
 *   column) are recorded at most once per product and origin, whatever the
 *   idempotency key and however long after: the primary key says so.
 * - The motivos STOCK_INICIAL and MIGRACION join the closed list.
 */
async function createSinUbicar(db: Knex): Promise<void> {
  await db.raw(
    `ALTER TABLE existencias DROP FOREIGN KEY existencias_bodega_id_foreign,
       ADD COLUMN bodega_ref INT UNSIGNED AS (NULLIF(bodega_id, ${SIN_UBICAR})) STORED INVISIBLE,
       ADD CONSTRAINT existencias_bodega_ref_foreign FOREIGN KEY (bodega_ref) REFERENCES bodegas (id)`,
  );
  await db.raw(
    `ALTER TABLE movimientos DROP CONSTRAINT movimientos_motivo_check, ADD CONSTRAINT movimientos_motivo_check ` +
      `CHECK (${inList('motivo', MOTIVOS_MOVIMIENTO)})`,
  );
  await db.schema.createTable('stock_inicial', (t) => {
    t.engine('InnoDB');
    t.integer('producto_id').unsigned().notNullable();
    t.string('origen', 32).notNullable();
    // NULL: nothing to record (no units, or levels that already explained them).
    t.bigInteger('operacion_id').unsigned().nullable().references('id').inTable('operaciones');
    t.dateTime('fecha').notNullable();
    t.primary(['producto_id', 'origen']);
    t.check(inList('origen', ['STOCK_INICIAL', 'MIGRACION']), [], 'stock_inicial_origen_check');
  });
}

async function dropSinUbicar(db: Knex): Promise<void> {
  await db.schema.dropTableIfExists('stock_inicial');
  await db.raw(
    `ALTER TABLE existencias DROP FOREIGN KEY existencias_bodega_ref_foreign, DROP COLUMN bodega_ref,
       ADD CONSTRAINT existencias_bodega_id_foreign FOREIGN KEY (bodega_id) REFERENCES bodegas (id)`,
  );
}

/** The database holds to the same closed lists as the code. */
function inList(column: string, values: readonly string[]): string {
  return `${column} IN (${values.map((v) => `'${v}'`).join(', ')})`;
}

export const LIBRO_SOLO_ANEXADO = 'el libro de movimientos es de solo anexado';

/**
 * Stock per warehouse and product, and its append-only ledger (docs/decisions.md, "Stock ledger").
 *
 * - `bodegas.ocupacion`: units held in all, kept with every stock write;
 *   CHECK 0 <= ocupacion <= capacidad, so no write (nor a capacity lowered
 *   by hand) can overfill a warehouse.
 * - `existencias`: one level per (warehouse, product), never negative.
 * - `operaciones`: one per command; `revierte_a` is unique, so an operation
 *   is reversed at most once.
 * - `movimientos`: the lines. CHECKs hold after = before + delta and
 *   after >= 0; (bodega, producto, version) is unique, so two writes can
 *   never both produce one version of a level.
 * - Triggers refuse UPDATE and DELETE of operations and lines: history is
 *   only ever appended to.
 * - `productos_eliminados`: products ProductoEliminado reported deleted; a
 *   stock write for one is refused.
 */
async function createStockTables(db: Knex): Promise<void> {
  await db.raw(
    `ALTER TABLE bodegas ADD COLUMN ocupacion INT NOT NULL DEFAULT 0,
       ADD CONSTRAINT bodegas_ocupacion_check CHECK (ocupacion >= 0 AND ocupacion <= capacidad)`,
  );
  await db.schema.createTable('existencias', (t) => {
    t.engine('InnoDB');
    t.increments('id').unsigned().primary();
    t.integer('bodega_id').unsigned().notNullable().references('id').inTable('bodegas');
    t.integer('producto_id').unsigned().notNullable();
    t.integer('cantidad').notNullable();
    t.integer('umbral_minimo').nullable();
    t.integer('version').unsigned().notNullable();
    t.dateTime('fecha_creacion').notNullable();
    t.dateTime('fecha_actualizacion').notNullable();
    t.unique(['bodega_id', 'producto_id'], { indexName: 'existencias_bodega_producto_unique' });
    t.index(['producto_id', 'bodega_id'], 'existencias_producto_idx');
    t.check('cantidad >= 0', [], 'existencias_cantidad_check');
    t.check('umbral_minimo IS NULL OR umbral_minimo >= 0', [], 'existencias_umbral_check');
  });
  await db.schema.createTable('operaciones', (t) => {
    t.engine('InnoDB');
    t.bigIncrements('id').unsigned().primary();
    t.string('tipo', 32).notNullable();
    t.string('usuario', 255).notNullable();
    t.string('comentario', 500).nullable();
    // Who retried what.
    t.string('clave_idempotencia', 255).nullable();
    t.bigInteger('revierte_a')
      .unsigned()
      .nullable()
      .unique({ indexName: 'operaciones_revierte_a_unique' })
      .references('id')
      .inTable('operaciones');
    t.dateTime('fecha').notNullable();
    t.check(inList('tipo', TIPOS_OPERACION), [], 'operaciones_tipo_check');
    t.charset('utf8mb4');
    t.collate('utf8mb4_unicode_520_ci');
  });
  await db.schema.createTable('movimientos', (t) => {
    t.engine('InnoDB');
    t.bigIncrements('id').unsigned().primary();
    t.bigInteger('operacion_id').unsigned().notNullable().references('id').inTable('operaciones');
    // No foreign keys to the warehouse: lines outlive it.
    t.integer('bodega_id').unsigned().notNullable();
    t.integer('producto_id').unsigned().notNullable();
    t.string('tipo', 16).notNullable();
    t.string('motivo', 32).notNullable();
    t.integer('cantidad').notNullable();
    t.integer('cantidad_anterior').notNullable();
    t.integer('cantidad_posterior').notNullable();
    t.integer('version').unsigned().notNullable();
    t.string('usuario', 255).notNullable();
    t.string('comentario', 500).nullable();
    t.dateTime('fecha').notNullable();
    t.unique(['bodega_id', 'producto_id', 'version'], { indexName: 'movimientos_nivel_version_unique' });
    t.index(['bodega_id', 'id'], 'movimientos_bodega_idx');
    t.index(['producto_id', 'id'], 'movimientos_producto_idx');
    t.index(['fecha'], 'movimientos_fecha_idx');
    t.check(inList('tipo', TIPOS_MOVIMIENTO), [], 'movimientos_tipo_check');
    t.check(inList('motivo', MOTIVOS_MOVIMIENTO), [], 'movimientos_motivo_check');
    t.check('cantidad_anterior >= 0 AND cantidad_posterior >= 0', [], 'movimientos_no_negativo_check');
    t.check('cantidad_posterior = cantidad_anterior + cantidad', [], 'movimientos_suma_check');
    t.charset('utf8mb4');
    t.collate('utf8mb4_unicode_520_ci');
  });
  for (const table of ['operaciones', 'movimientos']) {
    for (const event of ['UPDATE', 'DELETE']) {
      await db.raw(
        `CREATE TRIGGER ${table}_sin_${event.toLowerCase()} BEFORE ${event} ON ${table} FOR EACH ROW
           SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = '${LIBRO_SOLO_ANEXADO}'`,
      );
    }
  }
  await db.schema.createTable('productos_eliminados', (t) => {
    t.engine('InnoDB');
    t.integer('producto_id').unsigned().primary();
    t.dateTime('eliminado_en', { precision: 3 }).notNullable().defaultTo(db.raw('CURRENT_TIMESTAMP(3)'));
  });
}

async function dropStockTables(db: Knex): Promise<void> {
  await db.schema.dropTableIfExists('productos_eliminados');
  await db.schema.dropTableIfExists('movimientos');
  await db.schema.dropTableIfExists('operaciones');
  await db.schema.dropTableIfExists('existencias');
  await db.raw('ALTER TABLE bodegas DROP CONSTRAINT bodegas_ocupacion_check, DROP COLUMN ocupacion');
}
