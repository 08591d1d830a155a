import { INIT_SCRIPT_PATH, type GraphiqlAsset } from './graphiql-assets';

/**
 * The Content-Security-Policy of the GraphiQL page: scripts, styles, fonts,
 * images and requests from this origin only (GraphiQL's CSS embeds its fonts
 * and icons as data: URIs; its components set inline styles), no inline
 * script, no framing. The page runs where the browser holds the API's Basic
 * credentials, so nothing from elsewhere may run in it.
 */
export const GRAPHIQL_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * GraphiQL's first query, until the browser has stored tabs of its own. It
 * needs no variables, so the first ▶ answers data: GraphiQL 3.9 opens with
 * an empty variables editor (a default tab's variables are not loaded into
 * it, and its `variables` prop would overwrite what the user stored).
 */
export const GRAPHIQL_DEFAULT_QUERY = `# Los primeros productos, con su bodega.
# Pulse ▶ (o Ctrl-Enter) para ejecutar la consulta.
query Productos {
  productos(first: 10) {
    id
    nombre
    precio
    cantidad
    bodega { id nombre }
  }
}
`;

/** Text for an HTML attribute value or element content: every character that could end it escaped. */
function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * The GraphiQL page served to a browser at GET /api/graphql (GraphiQL 3 and
 * React 18, from `assetsBase`, this endpoint's own assets). The endpoint and
 * the starting query travel in data- attributes read by the init script; the
 * browser then POSTs its queries to the same endpoint, re-sending the Basic
 * credentials it already holds for this origin. Its icon is empty, so the
 * browser does not ask for a /favicon.ico the BFF does not have.
 */
export function graphiqlPage(endpoint: string, defaultQuery: string, assets: readonly GraphiqlAsset[], assetsBase: string): string {
  const url = (asset: GraphiqlAsset) => escapeHtml(`${assetsBase}${asset.path}`);
  const styles = assets.filter((a) => a.contentType.startsWith('text/css')).map((a) => `  <link rel="stylesheet" href="${url(a)}">`);
  // Our init script last: it needs the globals the others define.
  const scripts = assets
    .filter((a) => a.contentType.startsWith('text/javascript'))
    .sort((a, b) => Number(a.path === INIT_SCRIPT_PATH) - Number(b.path === INIT_SCRIPT_PATH))
    .map((a) => `  <script src="${url(a)}"></script>`);
  return `<!doctype html>
<html lang="es">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Inventario · GraphiQL</title>
  <link rel="icon" href="data:,">
  <style>body { margin: 0; } #graphiql { height: 100vh; }</style>
${styles.join('\n')}
</head>
<body>
  <div id="graphiql" data-endpoint="${escapeHtml(endpoint)}" data-default-query="${escapeHtml(defaultQuery)}">Cargando GraphiQL…</div>
${scripts.join('\n')}
</body>
</html>
`;
}
