import { createPublicKey } from 'node:crypto';
import { crearFirmante, crearVerificador } from '@inventario/contract';
import {
  isTransientDbError,
  retrying,
  runGrpcService,
  serveGrpcAfterMigrations,
  startSampler,
  startServiceBase,
  type EventsContext,
  type GrpcServiceApp,
  type GrpcServiceStartOptions,
  type Logger,
} from '@inventario/platform';
import { descriptorSetPath, IdentidadServiceService } from '@inventario/proto';
import { createActores } from './autenticacion/actores';
import { createAutenticador } from './autenticacion/autenticador';
import { createPasswordHasher } from './autenticacion/password-hasher';
import { createRegistroFallos } from './autenticacion/registro-fallos';
import type { Config } from './config';
import { asegurarCuentasDeServicio } from './cuentas-de-servicio';
import { AUDITORIA_CONSUMER, leerUltimaAncla, startAuditoriaConsumer } from './events/auditoria-consumer';
import { createIdentidadEvents } from './events/identidad-events';
import { createTokenAuditoriaHandlers } from './grpc/token-auditoria-handlers';
import { createUsuarioHandlers } from './grpc/usuario-handlers';
import { createAuditoriaStore } from './store/auditoria-store';
import { migrations } from './store/migrations';
import { createTokenStore } from './store/token-store';
import { createUsuarioStore } from './store/usuario-store';

/** The gRPC service name, also the key of its grpc.health.v1 status. */
export const IDENTIDAD_SERVICE_NAME = 'inventario.v1.IdentidadService';

export type StartOptions = GrpcServiceStartOptions;

/** A running identidad-svc. */
export interface App extends GrpcServiceApp {
  /**
   * The periodic audit tasks, run now (operations and tests): publish the head as an anchor; flush and close
   * failed-login windows.
   */
  tareas: { anclar(): Promise<{ seq: number; hash: string } | undefined>; cerrarFallos(): Promise<number> };
}

/** How often failed-login counts are added to the database (and closed windows written), at most. */
const FALLOS_FLUSH_MS = 5000;

/**
 * Starts identidad-svc: metrics, the database, the stores of users, tokens
 * and the audit trail behind the gRPC handlers, migrations, the first ADMIN
 * (BFF_USER) when none is active, health, the audit's periodic tasks (failed
 * logins, anchors), and in the background NATS, the outbox relay and the
 * audit consumer of the whole stream. Whatever a step opened is closed if a
 * later one throws. One linear start-up sequence whose order is the contract.
 */
export async function startApp(config: Config, logger: Logger, options: StartOptions = {}): Promise<App> {
  const base = await startServiceBase({
    name: 'identidad-svc',
    config,
    logger,
    consumers: [AUDITORIA_CONSUMER],
    start: options,
    // A batch of the audit consumer sends its statements two by two (auditoria-store.ts, sentenciasJuntas). All of
    // this service's SQL is built with bindings; the migrations paste only constants.
    multipleStatements: true,
  });
  const { signal, registry, db, events, consumerMetrics } = base;
  const identidadEvents = createIdentidadEvents({
    namespace: config.eventTypeNamespace,
    subjectPrefix: config.natsSubjectPrefix,
  });
  const storeDeps = {
    events: identidadEvents,
    onCommitted: events.notifyRelay,
    idempotencyTtlSeconds: config.idempotencyTtlSeconds,
  };
  const usuarios = createUsuarioStore(db, storeDeps);
  const tokens = createTokenStore(db, storeDeps);
  const auditoria = createAuditoriaStore(db, { onCommitted: events.notifyRelay, sentenciasJuntas: true });
  const hasher = await createPasswordHasher({
    params: config.kdf.argon2,
    concurrency: config.kdf.concurrency,
    queue: config.kdf.queue,
    registry,
  });
  const firmante = crearFirmante(config.principalSigningKey, config.principalTtlSeconds);
  const clavePublica = createPublicKey(config.principalSigningKey);
  const verificador = crearVerificador(new Map([[firmante.kid, clavePublica]]), config.principalTtlSeconds);
  const fallos = createRegistroFallos({ store: auditoria, ventanaMs: config.authFallosVentanaMs });
  const autenticador = createAutenticador({ usuarios, tokens, hasher, firmante, fallos, logger });
  const actores = createActores({ verificador, usuarios, tokens, logger });

  // Set once NATS is up: the anchor check of VerificarAuditoria reads the stream.
  let nats: EventsContext | undefined;
  const ultimaAncla = async () => (nats ? leerUltimaAncla(nats.nc, nats.stream, nats.prefix) : undefined);

  const grpc = await serveGrpcAfterMigrations(base, {
    config,
    logger,
    migrations,
    grpc: {
      services: [
        {
          name: IDENTIDAD_SERVICE_NAME,
          definition: IdentidadServiceService,
          implementation: {
            ...createUsuarioHandlers({ usuarios, autenticador, actores, hasher, clavePublica, logger }),
            ...createTokenAuditoriaHandlers({
              usuarios,
              tokens,
              auditoria,
              actores,
              ultimaAncla,
              tokenTtl: { defaultDays: config.tokenTtlDefaultDays, maxDays: config.tokenTtlMaxDays },
              logger,
            }),
          },
        },
      ],
      descriptorSetPath,
    },
    async beforeCalls() {
      const admin = config.bootstrapAdmin;
      if (admin) {
        // Replicas starting together serialise on the guard row; only the first creates.
        const outcome = await retrying(
          'first ADMIN',
          () => usuarios.asegurarAdmin(admin.usuario, () => hasher.hash(admin.password)),
          logger,
          signal,
          isTransientDbError,
        );
        if (outcome !== 'existente') logger.info({ usuario: admin.usuario, outcome }, 'first ADMIN from BFF_USER');
      } else if (!(await usuarios.hayAdminActivo())) {
        logger.warn('no active ADMIN and no BFF_USER/BFF_PASSWORD to create one: nobody can administer users');
      }
      await asegurarCuentasDeServicio(config.cuentasDeServicio, {
        usuarios,
        tokens,
        vigenciaMaxDias: config.tokenTtlMaxDays,
        logger,
        signal,
      });
      const apartado = await retrying(
        'token id counter',
        () => tokens.apartarIdsRetirados(),
        logger,
        signal,
        isTransientDbError,
      );
      if (apartado !== undefined)
        logger.warn({ siguiente: apartado }, 'token id counter was at or below a retired id: moved past it');
    },
  });

  const tareas: App['tareas'] = {
    anclar: () => auditoria.anclar((cabeza) => identidadEvents.ancla(cabeza, new Date())),
    async cerrarFallos() {
      await fallos.volcar();
      return fallos.cerrar();
    },
  };
  const stopFallos = startSampler(
    'failed logins',
    Math.min(FALLOS_FLUSH_MS, config.authFallosVentanaMs),
    () => tareas.cerrarFallos().then(() => undefined),
    logger,
  );
  const stopAnclas = startSampler(
    'audit anchor',
    config.auditoriaAnclaIntervalMs,
    async () => {
      const cabeza = await tareas.anclar();
      if (cabeza) logger.info(cabeza, 'audit chain head anchored');
    },
    logger,
  );
  const app = runGrpcService(base, {
    grpc,
    config,
    logger,
    startConsumers(started) {
      nats = started;
      return startAuditoriaConsumer({
        ...started,
        namespace: config.eventTypeNamespace,
        store: auditoria,
        logger,
        metrics: consumerMetrics,
      });
    },
    consumersName: 'audit consumer start',
    async close() {
      await stopAnclas();
      // The last counts of failed logins go to the database before it closes.
      await stopFallos();
      await fallos
        .volcar()
        .catch((err: unknown) =>
          logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'failed-login counts lost'),
        );
    },
  });
  return { ...app, tareas };
}
