import { INIT_SCRIPT_PATH, type GraphiqlAsset } from './graphiql-assets';

/**
 * This origin only, no inline script, no framing: the page runs where the browser holds the API's
 * Basic credentials. GraphiQL's CSS embeds data: fonts and icons; its components set inline styles.
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

/** It needs no variables, so the first ▶ answers data: GraphiQL 3.9 opens with an empty variables editor. */
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

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Its icon is empty, so the browser does not ask for a /favicon.ico the BFF does not have. */
export function graphiqlPage(
  endpoint: string,
  defaultQuery: string,
  assets: readonly GraphiqlAsset[],
  assetsBase: string,
): string {
  const url = (asset: GraphiqlAsset) => escapeHtml(`${assetsBase}${asset.path}`);
  const styles = assets
    .filter((a) => a.contentType.startsWith('text/css'))
    .map((a) => `  <link rel="stylesheet" href="${url(a)}">`);
  const scripts = assets
    .filter((a) => a.contentType.startsWith('text/javascript'))
    .sort((a, b) => Number(a.path === INIT_SCRIPT_PATH) - Number(b.path === INIT_SCRIPT_PATH))
    .map((a) => `  <script src="${url(a)}"></script>`);
  return (
    `<!doctype html>
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
  <div id="graphiql" data-endpoint="${escapeHtml(endpoint)}" ` +
    `data-default-query="${escapeHtml(defaultQuery)}">Cargando GraphiQL…</div>
${scripts.join('\n')}
</body>
</html>
`
  );
}
