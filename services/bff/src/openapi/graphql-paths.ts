import { jsonResponse } from './components';

import type { Example, MediaType, Response } from './openapi-types';
import { ex, type Route } from './routes';
import { schemaRef } from './schemas';

/**
 * The GraphQL endpoint (docs/contract.md §4.1) as seen from HTTP. The schema
 * itself is GraphQL's (introspection); this only describes the transport, which
 * is graphql-http's: its own answers (400, 405, 406, 415) carry GraphQL
 * `{errors}` bodies, while authentication, rate limit, a body that cannot be
 * read (too large, not decompressible, an unknown charset or Content-Encoding)
 * and unexpected failures carry the REST error body like every other route.
 */

const ejemploConsulta = {
  query: 'query ProductoPorId($id: ID!) { producto(id: $id) { id nombre precio cantidad } }',
  variables: { id: '12' },
  operationName: 'ProductoPorId',
};
const datos = ex({ data: { producto: { id: '12', nombre: 'Tornillo M6', precio: 19.9, cantidad: 500 } } });
const validacion = ex(
  {
    errors: [
      { message: 'Cannot query field "peso" on type "Producto".', locations: [{ line: 1, column: 30 }], extensions: { classification: 'ValidationError' } },
    ],
  },
  'Campo inexistente',
);
const limiteDeNodos = ex(
  {
    data: null,
    errors: [
      {
        message: 'La consulta supera el máximo de 100000 nodos de resultado: pida menos elementos con first y after',
        extensions: { classification: 'ValidationError' },
      },
    ],
  },
  'Detenida al superar el máximo de nodos de resultado durante la ejecución',
);
const peticionMalFormada = ex({ errors: [{ message: 'Falta el parámetro query con el documento GraphQL', extensions: { classification: 'BAD_REQUEST' } }] });

const graphqlResponse = (examples?: Record<string, Example>): MediaType => ({ schema: schemaRef('GraphqlResponse'), ...(examples ? { examples } : {}) });
/** A GraphQL `{errors}` body, or the REST error body of a request body that could not be read. */
const graphqlOrRestError = { oneOf: [schemaRef('GraphqlResponse'), schemaRef('Error')] };
const notAcceptable: Response = {
  description: '`Accept` no admite ni `application/json` ni `application/graphql-response+json`.',
  content: { 'application/json': graphqlResponse() },
};
const query = (name: string, description: string) => ({ name, in: 'query' as const, description, schema: { type: 'string' as const } });

export const GRAPHQL_ROUTES: Route[] = [
  {
    method: 'get',
    path: '/api/graphql',
    operationId: 'graphqlGet',
    tag: 'GraphQL',
    summary: 'Información del endpoint GraphQL, o una consulta por GET',
    description:
      'Sin `query` devuelve cómo usar el endpoint (un navegador que prefiere `text/html` recibe GraphiQL). ' +
      'Con `query` ejecuta la consulta (GraphQL over HTTP por GET; solo consultas: una mutación es 405), con los límites de POST.',
    queryParameters: [
      query('query', 'Documento GraphQL (solo operaciones query).'),
      query('variables', 'Variables, como objeto JSON codificado.'),
      query('operationName', 'Operación a ejecutar si el documento trae varias.'),
    ],
    responses: {
      200: {
        description: 'Sin `query`: la información del endpoint (o GraphiQL para un navegador). Con `query`: el resultado.',
        content: {
          'application/json': {
            schema: { oneOf: [schemaRef('GraphqlInfo'), schemaRef('GraphqlResponse')] },
            examples: {
              info: ex(
                {
                  message: 'Endpoint GraphQL de Inventario: envíe POST con un cuerpo JSON {query, variables, operationName}',
                  ejemplo: ejemploConsulta,
                  endpoint: '/api/graphql',
                },
                'Sin query',
              ),
              datos,
            },
          },
          'application/graphql-response+json': graphqlResponse(),
          'text/html': { schema: { type: 'string', description: 'GraphiQL.' } },
        },
      },
      400: {
        description:
          'Solo con `Accept: application/graphql-response+json`: la petición no es GraphQL válida (sin `query`, `variables` que ' +
          'no es JSON) o el documento no valida. Con `application/json` es 200 con `errors`.',
        content: { 'application/graphql-response+json': graphqlResponse({ peticionMalFormada }) },
      },
      405: { description: 'El documento es una mutación: las mutaciones solo se aceptan por POST.', content: { 'application/json': graphqlResponse() } },
      406: notAcceptable,
    },
    errors: [401, 429, 500],
  },
  {
    method: 'post',
    path: '/api/graphql',
    operationId: 'graphqlPost',
    tag: 'GraphQL',
    summary: 'Ejecuta una operación GraphQL',
    description:
      'GraphQL over HTTP. Antes de ejecutar se acotan la profundidad (10 niveles), el coste del documento (1000), los alias (15), ' +
      'las escrituras de una mutación (5 campos de primer nivel, alias incluidos) ' +
      'y el tamaño estimado del resultado (200000 nodos: objetos y elementos de lista; cada lista cuenta su `first`, 1000 si ' +
      '`first` es una variable, y 100 sin `first`). Durante la ejecución se acotan los nodos del resultado (`GRAPHQL_MAX_NODES`, ' +
      '100000) y el tiempo (`GRAPHQL_DEADLINE_MS`, 10 s). `productos`, `bodegas`, `Bodega.productos`, `Bodega.existencias` y ' +
      '`Producto.existencias` admiten `first` (0..1000) y `after` (cursor: el id del último elemento recibido en base64url; en las ' +
      'existencias, el del producto o la bodega que las ordena); sin ellos, las listas son completas. El libro de movimientos ' +
      '(`movimientos(filtro, first, after)`) se pagina con su propio cursor, `siguienteCursor`. Las mutaciones de stock ' +
      '(`asignarProductoABodega`, `retirarProductoDeBodega`, `registrarMovimiento`, `transferirStock`, `revertirOperacion`) son ' +
      'las rutas REST de stock: un rechazo es `success: false` con `error` empezando por el código REST (`STOCK_INSUFICIENTE: ...`).',
    body: { schema: 'GraphqlRequest', examples: { consulta: ex(ejemploConsulta) } },
    responses: {
      200: {
        description:
          'Resultado GraphQL. Con `Accept: application/json` (o `*/*`) toda respuesta GraphQL es 200, también la que solo trae ' +
          '`errors`: un documento que no valida y una petición mal formada (sin `query`, cuerpo que no es JSON, un lote, ' +
          'parámetros de tipo incorrecto, clasificada `BAD_REQUEST`). Los fallos de una mutación son datos (`success: false`), no errores. ' +
          'Una ejecución que supera el máximo de nodos de resultado (`ValidationError`) o su tiempo máximo (`DEADLINE_EXCEEDED`) ' +
          'responde `data: null` con ese único error.',
        content: {
          'application/json': graphqlResponse({ datos, validacion, limiteDeNodos, peticionMalFormada }),
          'application/graphql-response+json': graphqlResponse(),
        },
      },
      400: {
        description:
          'Solo con `Accept: application/graphql-response+json`: la petición no es GraphQL válida (sin `query`, cuerpo que no es ' +
          'JSON, parámetros de tipo incorrecto) o el documento no valida. Con cualquier `Accept`: el cuerpo no se pudo leer ' +
          '(no se descomprime según su `Content-Encoding`), con el cuerpo de error REST (`MALFORMED_JSON`).',
        content: {
          ...jsonResponse('', graphqlOrRestError, { jsonIlegible: { error: 'MALFORMED_JSON', mensaje: 'El cuerpo no se pudo leer' } }).content,
          'application/graphql-response+json': graphqlResponse({ peticionMalFormada }),
        },
      },
      406: notAcceptable,
      415: {
        description:
          'El cuerpo no es `application/json` (cuerpo GraphQL `{errors}`), o su juego de caracteres o `Content-Encoding` ' +
          'no se admite (cuerpo de error REST).',
        content: { 'application/json': { schema: graphqlOrRestError } },
      },
    },
    errors: [401, 413, 429, 500],
  },
];
