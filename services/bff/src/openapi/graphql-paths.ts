import type { ExampleObject, MediaTypeObject, ResponseObject } from 'openapi3-ts/oas31';
import { json } from './components';
import { ex, op, type Route } from './routes';
import { schemaRef } from './schemas';

/**
 * The GraphQL endpoint (docs/contract.md §4.1) as HTTP sees it. graphql-http's own answers (400, 405, 406, 415) carry
 * GraphQL `{errors}`; authentication, rate
 * limit, an unreadable body and unexpected failures carry the REST error body.
 */

const QUERY = 'query ProductoPorId($id: ID!) { producto(id: $id) { id nombre precio cantidad } }';
const consulta = { query: QUERY, variables: { id: '12' }, operationName: 'ProductoPorId' };
const datos = ex({ data: { producto: { id: '12', nombre: 'Tornillo M6', precio: 19.9, cantidad: 500 } } });
const error = (message: string, classification: string, extra: object = {}) => ({
  message,
  ...extra,
  extensions: { classification },
});
const campoInexistente = error('Cannot query field "peso" on type "Producto".', 'ValidationError', {
  locations: [{ line: 1, column: 30 }],
});
const validacion = ex({ errors: [campoInexistente] }, 'Campo inexistente');
const NODOS = 'La consulta supera el máximo de 100000 nodos de resultado: pida menos elementos con first y after';
const limiteDeNodos = ex(
  { data: null, errors: [error(NODOS, 'ValidationError')] },
  'Detenida al superar el máximo de nodos de resultado durante la ejecución',
);
const peticionMalFormada = ex({ errors: [error('Falta el parámetro query con el documento GraphQL', 'BAD_REQUEST')] });
const USO = 'Endpoint GraphQL de Inventario: envíe POST con un cuerpo JSON {query, variables, operationName}';
const info = { message: USO, ejemplo: consulta, endpoint: '/api/graphql' };

const graphqlResponse = (examples?: Record<string, ExampleObject>): MediaTypeObject => {
  return { schema: schemaRef('GraphqlResponse'), ...(examples && { examples }) };
};
const graphqlOnly = (description: string, examples?: Record<string, ExampleObject>): ResponseObject => {
  return { description, content: { 'application/json': graphqlResponse(examples) } };
};
/** A GraphQL `{errors}` body, or the REST error body of a request body that could not be read. */
const graphqlOrRestError = { oneOf: [schemaRef('GraphqlResponse'), schemaRef('Error')] };
const notAcceptable = graphqlOnly('`Accept` no admite ni `application/json` ni `application/graphql-response+json`.');
const query = (name: string, description: string) => ({
  name,
  in: 'query' as const,
  description,
  schema: { type: 'string' as const },
});
const SOLO_GRAPHQL_RESPONSE =
  'Solo con `Accept: application/graphql-response+json`: la petición no es GraphQL válida (sin `query`,';
export const GRAPHQL_ROUTES: Record<string, Route[]> = {
  GraphQL: [
    op('get /api/graphql', 'graphqlGet', 'Información del endpoint GraphQL, o una consulta por GET', {
      description:
        'Sin `query` devuelve cómo usar el endpoint (un navegador que prefiere `text/html` recibe GraphiQL). Con ' +
        '`query` ejecuta la consulta (GraphQL over HTTP por GET; solo consultas: una mutación es 405), con los ' +
        'límites de POST y solo si es pequeña: cada lista con `first` y a lo sumo 1000 nodos estimados ' +
        '(las demás, por POST).',
      queryParameters: [
        query('query', 'Documento GraphQL (solo operaciones query).'),
        query('variables', 'Variables, como objeto JSON codificado.'),
        query('operationName', 'Operación a ejecutar si el documento trae varias.'),
      ],
      responses: {
        200: {
          description:
            'Sin `query`: la información del endpoint (o GraphiQL para un navegador). Con `query`: el resultado.',
          content: {
            'application/json': {
              schema: { oneOf: [schemaRef('GraphqlInfo'), schemaRef('GraphqlResponse')] },
              examples: { info: ex(info, 'Sin query'), datos },
            },
            'application/graphql-response+json': graphqlResponse(),
            'text/html': { schema: { type: 'string', description: 'GraphiQL.' } },
          },
        },
        400: {
          description:
            `${SOLO_GRAPHQL_RESPONSE} \`variables\` que no es JSON) o el documento no valida. Con ` +
            `\`application/json\` es 200 con \`errors\`.`,
          content: { 'application/graphql-response+json': graphqlResponse({ peticionMalFormada }) },
        },
        405: graphqlOnly('El documento es una mutación: las mutaciones solo se aceptan por POST.'),
        406: notAcceptable,
      },
    }),
    op('post /api/graphql', 'graphqlPost', 'Ejecuta una operación GraphQL', {
      description:
        'GraphQL over HTTP. Antes de ejecutar se acotan la profundidad (10 niveles), el coste del documento ' +
        '(1000), los alias (15), las escrituras de una mutación (5 campos de primer nivel, alias incluidos) y el ' +
        'tamaño estimado del resultado (200000 nodos: objetos y elementos de lista; cada lista cuenta su `first`, ' +
        '1000 si `first` es una variable, y 100 sin `first`). Durante la ejecución se acotan los nodos del ' +
        'resultado (`GRAPHQL_MAX_NODES`, 100000) y el tiempo (`GRAPHQL_DEADLINE_MS`, 10 s). `productos`, ' +
        '`bodegas`, `Bodega.productos`, `Bodega.existencias` y `Producto.existencias` admiten `first` (0..1000) y ' +
        '`after` (cursor: el id del último elemento recibido en base64url; en las existencias, el del producto o ' +
        'la bodega que las ordena); sin ellos, las listas son completas. El libro de movimientos ' +
        '(`movimientos(filtro, first, after)`) se pagina con su propio cursor, `siguienteCursor`. Las mutaciones ' +
        'de stock (`asignarProductoABodega`, `retirarProductoDeBodega`, `cambiarUmbralMinimo`, ' +
        '`registrarMovimiento`, `transferirStock`, `revertirOperacion`) son las rutas REST de stock: un rechazo es ' +
        '`success: false` con `error` empezando por el código REST (`STOCK_INSUFICIENTE: ...`).',
      body: { schema: 'GraphqlRequest', examples: { consulta: ex(consulta) } },
      responses: {
        200: {
          description:
            'Resultado GraphQL. Con `Accept: application/json` (o `*/*`) toda respuesta GraphQL es 200, también la ' +
            'que solo trae `errors`: un documento que no valida y una petición mal formada (sin `query`, cuerpo ' +
            'que no es JSON, un lote, parámetros de tipo incorrecto, clasificada `BAD_REQUEST`). Los fallos de una ' +
            'mutación son datos (`success: false`), no errores. Una ejecución que supera el máximo de nodos de ' +
            'resultado (`ValidationError`) o su tiempo máximo (`DEADLINE_EXCEEDED`) responde `data: null` ' +
            'con ese único error.',
          content: {
            'application/json': graphqlResponse({ datos, validacion, limiteDeNodos, peticionMalFormada }),
            'application/graphql-response+json': graphqlResponse(),
          },
        },
        400: {
          description:
            `${SOLO_GRAPHQL_RESPONSE} cuerpo que no es JSON, parámetros de tipo incorrecto) o el ` +
            `documento no valida. Con cualquier \`Accept\`: el cuerpo no se pudo leer (no se descomprime según su ` +
            `\`Content-Encoding\`), con el cuerpo de error REST (\`MALFORMED_JSON\`).`,
          content: {
            ...json(graphqlOrRestError, '', {
              jsonIlegible: { error: 'MALFORMED_JSON', mensaje: 'El cuerpo no se pudo leer' },
            }).content,
            'application/graphql-response+json': graphqlResponse({ peticionMalFormada }),
          },
        },
        406: notAcceptable,
        415: {
          description:
            'El cuerpo no es `application/json` (cuerpo GraphQL `{errors}`), o su juego de caracteres o ' +
            '`Content-Encoding` no se admite (cuerpo de error REST).',
          content: { 'application/json': { schema: graphqlOrRestError } },
        },
      },
    }),
  ],
};
