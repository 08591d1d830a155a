import express from 'express';
import swaggerUi from 'swagger-ui-express';
import { openApiDocument } from './document';

/**
 * The API's documentation under the prefix the app mounts it at (`/api`, `/api/v1`, after authentication): `GET
 * /openapi.json`, the document, and `GET /docs/`,
 * the reference page (Swagger UI from the installed swagger-ui-dist, no CDN), which fetches the document with the
 * browser's Basic credentials. `GET /docs`
 * redirects there (serve-static's directory redirect), as the page links its assets relatively. Anything else under
 * `/docs/` is the app's JSON 404.
 */
export function createApiDocsRouter(): express.Router {
  const document = JSON.stringify(openApiDocument);
  const options: swaggerUi.SwaggerUiOptions = {
    // Relative to the page, so the same page works under /api, under /api/v1 and behind a proxy that adds a prefix.
    swaggerUrl: '../openapi.json',
    customSiteTitle: `${openApiDocument.info.title}: referencia`,
    // No online validator badge: under any host name but a loopback one, Swagger UI would fetch it from swagger.io
    // with the document's URL (a request elsewhere, and a broken image, as the document needs our auth).
    swaggerOptions: { validatorUrl: null },
  };
  const docs = express.Router();
  // serveFiles rather than swaggerUi.serve: serve's init script is module-level state that the last setup() call
  // overwrites.
  docs.use(swaggerUi.serveFiles(undefined, options));
  docs.get('/', swaggerUi.setup(undefined, options));
  const router = express.Router();
  router.get('/openapi.json', (_req, res) => res.type('application/json').send(document));
  return router.use('/docs', docs);
}
