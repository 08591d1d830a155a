/**
 * The GraphiQL page served to a browser at GET /api/graphql. It loads the
 * official GraphiQL 3 UMD bundle and React 18 from unpkg at pinned versions
 * (no npm dependency, nothing bundled into the BFF); the browser then POSTs
 * its queries to the same endpoint, re-sending the Basic credentials it
 * already holds for this origin.
 */
export const GRAPHIQL_ASSETS = {
  css: 'https://unpkg.com/graphiql@3.9.0/graphiql.min.css',
  scripts: [
    'https://unpkg.com/react@18.3.1/umd/react.production.min.js',
    'https://unpkg.com/react-dom@18.3.1/umd/react-dom.production.min.js',
    'https://unpkg.com/graphiql@3.9.0/graphiql.min.js',
  ],
} as const;

/** JSON for an inline <script>: `<`, `>` and `&` escaped so no value can close the script element. */
function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/[<>&]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

export function graphiqlPage(endpoint: string, defaultQuery: string): string {
  const scripts = GRAPHIQL_ASSETS.scripts.map((src) => `  <script crossorigin src="${src}"></script>`).join('\n');
  return `<!doctype html>
<html lang="es">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Inventario · GraphiQL</title>
  <style>body { margin: 0; } #graphiql { height: 100vh; }</style>
  <link rel="stylesheet" crossorigin href="${GRAPHIQL_ASSETS.css}">
</head>
<body>
  <div id="graphiql">Cargando GraphiQL…</div>
${scripts}
  <script>
    const fetcher = GraphiQL.createFetcher({ url: new URL(${scriptJson(endpoint)}, window.location.href).href });
    ReactDOM.createRoot(document.getElementById('graphiql')).render(
      React.createElement(GraphiQL, { fetcher, defaultQuery: ${scriptJson(defaultQuery)} }),
    );
  </script>
</body>
</html>
`;
}
