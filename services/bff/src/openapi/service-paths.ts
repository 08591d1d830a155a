import { API_ERRORS, errorResponses } from './components';
import type { PathItem, Response } from './openapi-types';
import { schemaRef } from './schemas';

/** Health probes (no authentication) and this documentation itself. */

const health = (description: string, value: unknown): Response => ({
  description,
  content: { 'application/json': { schema: schemaRef('Health'), examples: { estado: { value } } } },
});

const component = (status: 'UP' | 'DOWN', grpc: string, breaker: string) => ({ status, details: { grpc, breaker } });
const up = { status: 'UP', components: { productoSvc: component('UP', 'SERVING', 'closed'), bodegaSvc: component('UP', 'SERVING', 'closed') } };
const down = {
  status: 'DOWN',
  components: { productoSvc: component('DOWN', 'UNAVAILABLE', 'open'), bodegaSvc: component('UP', 'SERVING', 'closed') },
};

const noAuth = [] as const;
const tags = ['Salud'];

export const servicePaths = {
  '/actuator/health': {
    get: {
      operationId: 'salud',
      summary: 'Estado del BFF y de sus dependencias',
      description: 'Sin autenticación.',
      tags,
      security: noAuth,
      responses: {
        '200': health('Todo funciona.', up),
        '503': health('Alguna dependencia no responde.', down),
      },
    },
  },
  '/actuator/health/liveness': {
    get: {
      operationId: 'saludLiveness',
      summary: 'Sonda de vida (liveness)',
      description: 'Sin autenticación. Responde mientras el proceso funciona, aunque sus dependencias no.',
      tags,
      security: noAuth,
      responses: { '200': health('El proceso funciona.', { status: 'UP' }) },
    },
  },
  '/actuator/health/readiness': {
    get: {
      operationId: 'saludReadiness',
      summary: 'Sonda de disponibilidad (readiness)',
      description:
        'Sin autenticación. UP mientras el BFF acepta peticiones; DOWN (503) desde que empieza el apagado, para que el ' +
        'balanceador deje de enviarle tráfico. No depende de los servicios internos: el BFF se degrada por ruta ' +
        '(si producto-svc cae, las rutas de bodegas siguen funcionando).',
      tags,
      security: noAuth,
      responses: {
        '200': health('Acepta peticiones.', { status: 'UP' }),
        '503': health('Se está apagando.', { status: 'DOWN' }),
      },
    },
  },
  '/api/openapi.json': {
    get: {
      operationId: 'openapi',
      summary: 'Este documento OpenAPI 3.1',
      tags: ['Documentación'],
      responses: {
        '200': { description: 'El documento.', content: { 'application/json': { schema: schemaRef('OpenApi') } } },
        ...errorResponses(...API_ERRORS),
      },
    },
  },
  '/api/docs/': {
    get: {
      operationId: 'referencia',
      summary: 'Página de referencia de la API (Swagger UI)',
      description: '`/api/docs` redirige aquí. La página carga `/api/openapi.json` con las mismas credenciales.',
      tags: ['Documentación'],
      responses: {
        '200': { description: 'La página HTML.', content: { 'text/html': { schema: { type: 'string' } } } },
        ...errorResponses(...API_ERRORS),
      },
    },
  },
} as const satisfies Record<string, PathItem>;
