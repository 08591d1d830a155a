import type { OpenAPIObject } from 'openapi3-ts/oas31';
import { headers, parameters, responses } from './components';
import { GRAPHQL_ROUTES } from './graphql-paths';
import { IDENTIDAD_ROUTES } from './identidad-routes';
import { RESERVA_ROUTES } from './reserva-routes';
import { pathsOf, REST_ROUTES, SERVICE_ROUTES } from './routes';
import { componentSchemas } from './schemas';

const description = (
  `
API pública de Inventario: productos (\`Producto\`), bodegas (\`Bodega\`) y sus existencias por bodega con su ` +
  `libro de movimientos
(\`Existencia\`, \`Movimiento\`, \`Operacion\`), por REST y GraphQL.

- **Prefijo**: todas las rutas están bajo \`/api\`; \`/api/v1\` es un alias exacto (\`/api/v1/productos\` equivale ` +
  `a \`/api/productos\`).
  Las sondas de salud están en \`/actuator/health\`.
- **Autenticación**: HTTP Basic en todo salvo \`/actuator/health*\`.
- **JSON** de entrada y salida (\`Content-Type: application/json\`, cuerpo de a lo sumo 1 MiB). Las fechas son ISO ` +
  `8601 sin zona y en UTC (\`2026-11-22T14:03:07\`).
- **Errores**: siempre \`{error, mensaje, detalles?}\`, con \`detalles\` = \`[{campo, mensaje}]\` en los de ` +
  `validación. 400 validación (también un
  parámetro de consulta desconocido), JSON mal formado o un cuerpo que no se descomprime, 401 credenciales, 404 id ` +
  `o ruta desconocidos (en las
  existencias, \`detalles\` dice qué falta), 409 conflicto (en las existencias, el código de la regla con sus ` +
  `cifras: STOCK_INSUFICIENTE,
  CAPACIDAD_EXCEDIDA, …), 412 If-Match no coincide, 428 falta If-Match (un AJUSTE, o fijar una existencia que ya ` +
  `existe), 413 cuerpo demasiado grande, 415 tipo de contenido o
  \`Content-Encoding\` no soportado, 429 límite de peticiones (\`Retry-After\`), 431 URL y cabeceras de más de 16 ` +
  `KiB, 503 servicio interno no
  disponible (\`Retry-After\`), 504 plazo agotado, 500 cualquier otro fallo.
- **Eventos**: cada escritura que se confirma publica un evento (ProductoCreado, BodegaEliminada, …).
`
).trim();

/** `info.summary` and `jsonSchemaDialect` are OpenAPI 3.1's, though openapi3-ts's types lack them. */
const info = {
  title: 'Inventario API',
  version: '1.0.0',
  summary: 'Productos, bodegas y existencias por REST y GraphQL.',
  description,
};

/**
 * The BFF's OpenAPI 3.1 document, from the route tables and the routes' zod schemas; the contract tests check every
 * real response against it.
 */
export const openApiDocument = {
  openapi: '3.1.1',
  // OpenAPI 3.1's default dialect, stated: Swagger UI renders no other without a warning box.
  jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
  info: { ...info, license: { name: 'Apache-2.0', identifier: 'Apache-2.0' } },
  servers: [{ url: '/', description: 'Este mismo servidor (las rutas ya incluyen /api).' }],
  tags: [
    { name: 'Productos', description: 'Productos del inventario.' },
    { name: 'Bodegas', description: 'Bodegas y sus productos, con borrado seguro.' },
    {
      name: 'Existencias',
      description: 'Unidades de cada producto en cada bodega, y el libro de movimientos que las produjo.',
    },
    {
      name: 'Reservas',
      description: 'Unidades retenidas para un pedido hasta una expiración exacta: disponible = cantidad - reservada.',
    },
    { name: 'Identidad', description: 'Usuarios, roles por bodega, tokens de API y auditoría (con identidad-svc).' },
    { name: 'GraphQL', description: 'El mismo inventario por GraphQL.' },
    { name: 'Salud', description: 'Sondas para el orquestador; sin autenticación.' },
    { name: 'Documentación', description: 'Este documento y su página de referencia.' },
  ],
  security: [{ basicAuth: [] as string[] }, { bearerAuth: [] as string[] }] as Record<string, string[]>[],
  paths: {
    ...pathsOf(REST_ROUTES, { callsService: true }),
    ...pathsOf(IDENTIDAD_ROUTES, { callsService: true }),
    ...pathsOf(RESERVA_ROUTES, { callsService: true }),
    ...pathsOf(GRAPHQL_ROUTES),
    ...pathsOf(SERVICE_ROUTES),
  },
  components: {
    schemas: componentSchemas(),
    parameters,
    headers,
    responses,
    securitySchemes: {
      basicAuth: {
        type: 'http',
        scheme: 'basic',
        description:
          'Usuario y contraseña: los de cada usuario con identidad-svc (BFF_USER / BFF_PASSWORD es el primer ' +
          'ADMIN); sin él, los del BFF.',
      },
      bearerAuth: {
        type: 'http',
        scheme: 'bearer',
        description: 'Un token de API, `inv_<id>_<secreto>` (POST /api/tokens).',
      },
    },
  },
} satisfies OpenAPIObject & { jsonSchemaDialect: string };
