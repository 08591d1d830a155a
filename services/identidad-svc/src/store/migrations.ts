import { NOMBRES_ROL } from '@inventario/contract';
import {
  createIdempotencyTable,
  createOutboxTables,
  dropIdempotencyTable,
  dropOutboxTables,
  type Knex,
  type Migration,
} from '@inventario/platform';

/** The unique index on the case-folded user name; the store recognises its duplicate-key errors by it. */
export const USUARIO_UNIQUE_INDEX = 'usuarios_usuario_clave_unique';
export const AUDITORIA_SOLO_ANEXADO = 'la auditoría es de solo anexado';

/** The database holds to the same closed lists as the code. */
function inList(column: string, values: readonly string[]): string {
  return `${column} IN (${values.map((v) => `'${v}'`).join(', ')})`;
}

/** Never edit a shipped migration; add a new one. */
export const migrations: Record<string, Migration> = {
  '0001_identidades': { up: createIdentityTables, down: dropIdentityTables },
  '0002_auditoria': { up: createAuditTables, down: dropAuditTables },
  '0003_idempotency_y_outbox': {
    async up(db: Knex) {
      await createIdempotencyTable(db);
      await createOutboxTables(db);
    },
    async down(db: Knex) {
      await dropOutboxTables(db);
      await dropIdempotencyTable(db);
    },
  },
  '0004_tokens_retirados': { up: createRetiredTokens, down: dropRetiredTokens },
};

async function createIdentityTables(db: Knex): Promise<void> {
  await db.schema.createTable('usuarios', (t) => {
    t.engine('InnoDB');
    t.increments('id').unsigned().primary();
    t.string('usuario', 255).notNullable();
    // claveDeUsuario(usuario): NFC and case-folded by the code, compared byte for byte here.
    t.specificType('usuario_clave', 'VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin').notNullable();
    t.unique(['usuario_clave'], { indexName: USUARIO_UNIQUE_INDEX });
    t.string('tipo', 16).notNullable();
    t.string('estado', 16).notNullable();
    // A PHC string; null for service accounts and users not given one.
    t.string('password_hash', 255).nullable();
    t.integer('credencial_version').unsigned().notNullable().defaultTo(1);
    t.integer('version').unsigned().notNullable().defaultTo(1);
    t.dateTime('fecha_creacion').notNullable();
    t.dateTime('fecha_actualizacion').notNullable();
    t.check(inList('tipo', ['HUMANO', 'SERVICIO']), [], 'usuarios_tipo_valido');
    t.check(inList('estado', ['ACTIVO', 'SUSPENDIDO']), [], 'usuarios_estado_valido');
    t.charset('utf8mb4');
    t.collate('utf8mb4_unicode_520_ci');
  });
  await db.schema.createTable('asignaciones', (t) => {
    t.engine('InnoDB');
    t.increments('id').unsigned().primary();
    t.integer('usuario_id').unsigned().notNullable().references('id').inTable('usuarios').onDelete('CASCADE');
    t.string('rol', 16).notNullable();
    // null: every warehouse. No foreign key: warehouses live in bodega-svc's database.
    t.integer('bodega_id').unsigned().nullable();
    t.check(inList('rol', NOMBRES_ROL), [], 'asignaciones_rol_valido');
  });
  // One binding per (user, role, warehouse), "every warehouse" included (a NULL would never collide).
  await db.raw('ALTER TABLE asignaciones ADD COLUMN bodega_clave INT UNSIGNED AS (COALESCE(bodega_id, 0)) STORED');
  await db.raw('ALTER TABLE asignaciones ADD UNIQUE INDEX asignaciones_unica (usuario_id, rol, bodega_clave)');
  await db.schema.createTable('tokens', (t) => {
    t.engine('InnoDB');
    t.increments('id').unsigned().primary();
    t.integer('usuario_id').unsigned().notNullable().references('id').inTable('usuarios').onDelete('CASCADE');
    t.string('nombre', 255).notNullable();
    // SHA-256 of the secret; the secret itself is never stored.
    t.specificType('hash_secreto', 'BINARY(32)').notNullable();
    // JSON [{permiso, todasLasBodegas, bodegaIds}]; null: the owner's rights at each use.
    t.text('alcance').nullable();
    t.dateTime('expira_en').notNullable();
    t.dateTime('fecha_creacion').notNullable();
    t.dateTime('revocado_en').nullable();
    t.integer('revocado_por').unsigned().nullable();
    t.dateTime('ultimo_uso').nullable();
    t.index(['usuario_id', 'id'], 'tokens_usuario_idx');
    t.charset('utf8mb4');
    t.collate('utf8mb4_unicode_520_ci');
  });
  // One row whose lock serialises every change that could take away an active ADMIN, so two
  // concurrent demotions cannot both see the other admin still there (docs/decisions.md).
  await db.schema.createTable('guardia_admin', (t) => {
    t.tinyint('id').unsigned().primary();
  });
  await db('guardia_admin').insert({ id: 1 });
}

async function dropIdentityTables(db: Knex): Promise<void> {
  for (const table of ['guardia_admin', 'tokens', 'asignaciones', 'usuarios']) await db.schema.dropTableIfExists(table);
}

async function createAuditTables(db: Knex): Promise<void> {
  await db.schema.createTable('auditoria', (t) => {
    t.engine('InnoDB');
    t.bigInteger('seq').unsigned().primary();
    t.string('evento_id', 191).notNullable().unique('auditoria_evento_unico');
    t.string('accion', 64).notNullable();
    t.string('recurso', 255).notNullable();
    t.integer('principal_id').unsigned().nullable();
    t.string('usuario', 255).notNullable();
    t.string('metodo_auth', 16).notNullable();
    t.integer('token_id').unsigned().nullable();
    t.string('request_id', 255).notNullable();
    t.string('direccion', 64).notNullable();
    t.text('datos', 'longtext').notNullable();
    t.dateTime('ocurrido_en', { precision: 3 }).notNullable();
    t.specificType('hash_anterior', 'BINARY(32)').notNullable();
    t.specificType('hash', 'BINARY(32)').notNullable();
    t.index(['principal_id', 'seq'], 'auditoria_principal_idx');
    t.index(['accion', 'seq'], 'auditoria_accion_idx');
    t.index(['ocurrido_en'], 'auditoria_fecha_idx');
    t.charset('utf8mb4');
    t.collate('utf8mb4_bin');
  });
  // Append-only for everyone, root included: changing history needs DROP TRIGGER, which the chain then exposes.
  for (const event of ['UPDATE', 'DELETE']) {
    await db.raw(
      `CREATE TRIGGER auditoria_sin_${event.toLowerCase()} BEFORE ${event} ON auditoria FOR EACH ROW
         SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = '${AUDITORIA_SOLO_ANEXADO}'`,
    );
  }
  // The chain head: locked by every append, so rows are chained one at a time in seq order.
  // `anclada_seq` is the last head published as an anchor.
  await db.schema.createTable('auditoria_cabeza', (t) => {
    t.tinyint('id').unsigned().primary();
    t.bigInteger('seq').unsigned().notNullable();
    t.specificType('hash', 'BINARY(32)').notNullable();
    t.bigInteger('anclada_seq').unsigned().notNullable();
  });
  await db('auditoria_cabeza').insert({ id: 1, seq: 0, hash: Buffer.alloc(32), anclada_seq: 0 });
  // Failed logins per client address and window, summed across replicas; each closed window becomes one audit row.
  await db.schema.createTable('fallos_autenticacion', (t) => {
    t.engine('InnoDB');
    t.string('direccion', 64).notNullable();
    t.dateTime('ventana').notNullable();
    t.integer('intentos').unsigned().notNullable();
    t.boolean('auditada').notNullable().defaultTo(false);
    t.primary(['direccion', 'ventana']);
    t.index(['auditada', 'ventana'], 'fallos_pendientes_idx');
  });
}

async function dropAuditTables(db: Knex): Promise<void> {
  for (const table of ['fallos_autenticacion', 'auditoria_cabeza', 'auditoria'])
    await db.schema.dropTableIfExists(table);
}

/**
 * Token ids that must never authenticate again, kept after their rows are gone (docs/decisions.md, "Retired declared
 * token ids outlive their account"): a declared id found here is never created again at start. Triggers write it in
 * the revoking or deleting statement itself, whatever code runs it (a replica of the previous release during a
 * rolling upgrade, a maintenance statement); a delete's cascade to `tokens` fires no trigger, hence the one on
 * `usuarios`, which runs before its tokens go.
 */
async function createRetiredTokens(db: Knex): Promise<void> {
  await db.schema.createTable('tokens_retirados', (t) => {
    t.engine('InnoDB');
    t.integer('token_id').unsigned().primary();
    // The owner when retired; no foreign key: the record outlives the account.
    t.integer('usuario_id').unsigned().notNullable();
    t.dateTime('retirado_en').notNullable();
    t.string('motivo', 24).notNullable();
    // The migration's own copy of token-store's MotivoRetiro: a shipped migration never changes with the code.
    t.check(inList('motivo', ['REVOCADO', 'USUARIO_ELIMINADO']), [], 'tokens_retirados_motivo_valido');
  });
  // A token revoked twice, or one revoked and then deleted with its owner, keeps its first record.
  const primero = 'ON DUPLICATE KEY UPDATE token_id = token_id';
  await db.raw(
    `CREATE TRIGGER tokens_retiro_revocado AFTER UPDATE ON tokens FOR EACH ROW
       INSERT INTO tokens_retirados (token_id, usuario_id, retirado_en, motivo)
       SELECT NEW.id, NEW.usuario_id, NEW.revocado_en, 'REVOCADO' FROM DUAL
       WHERE OLD.revocado_en IS NULL AND NEW.revocado_en IS NOT NULL ${primero}`,
  );
  await db.raw(
    `CREATE TRIGGER usuarios_retiro_tokens BEFORE DELETE ON usuarios FOR EACH ROW
       INSERT INTO tokens_retirados (token_id, usuario_id, retirado_en, motivo)
       SELECT id, usuario_id, UTC_TIMESTAMP(), 'USUARIO_ELIMINADO' FROM tokens WHERE usuario_id = OLD.id ${primero}`,
  );
  // Tokens retired before this table existed: those revoked, and those the audit trail saw created whose rows are
  // gone, which only a delete of their owner removes (retired when the trail saw that owner deleted).
  await db.raw(
    `INSERT INTO tokens_retirados (token_id, usuario_id, retirado_en, motivo)
     SELECT id, usuario_id, revocado_en, 'REVOCADO' FROM tokens WHERE revocado_en IS NOT NULL`,
  );
  const idDe = (fila: string, campo: string) => `CAST(JSON_VALUE(${fila}.datos, '$.${campo}') AS UNSIGNED)`;
  await db.raw(
    `INSERT INTO tokens_retirados (token_id, usuario_id, retirado_en, motivo)
     SELECT c.token_id, c.usuario_id, COALESCE(MAX(e.ocurrido_en), UTC_TIMESTAMP()), 'USUARIO_ELIMINADO'
       FROM (SELECT ${idDe('a', 'tokenId')} AS token_id, ${idDe('a', 'usuarioId')} AS usuario_id
               FROM auditoria a WHERE a.accion = 'TokenCreado') c
       LEFT JOIN tokens t ON t.id = c.token_id
       LEFT JOIN auditoria e ON e.accion = 'UsuarioEliminado' AND ${idDe('e', 'usuarioId')} = c.usuario_id
      WHERE t.id IS NULL AND c.token_id > 0 AND c.usuario_id > 0
      GROUP BY c.token_id, c.usuario_id
         ON DUPLICATE KEY UPDATE tokens_retirados.token_id = tokens_retirados.token_id`,
  );
}

async function dropRetiredTokens(db: Knex): Promise<void> {
  await db.raw('DROP TRIGGER IF EXISTS usuarios_retiro_tokens');
  await db.raw('DROP TRIGGER IF EXISTS tokens_retiro_revocado');
  await db.schema.dropTableIfExists('tokens_retirados');
}
