import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { RequestHandler } from 'express';

/**
 * The GraphiQL page's files, served by the BFF from the installed packages, never a CDN: the page
 * runs where the browser holds the API's Basic credentials, so every script must come from us.
 */

export interface GraphiqlAsset {
  /** Under the assets mount, e.g. `/graphiql@3.9.0/graphiql.min.js`. */
  path: string;
  contentType: string;
  source: { file: string } | { text: string };
  /** Versioned paths never change content: cached for a year. Ours is revalidated. */
  immutable: boolean;
}

const JS = 'text/javascript; charset=utf-8';
const CSS = 'text/css; charset=utf-8';

function installed(name: string): { dir: string; version: string } {
  const manifest = require.resolve(`${name}/package.json`);
  const { version } = JSON.parse(readFileSync(manifest, 'utf8')) as { version: string };
  return { dir: dirname(manifest), version };
}

/** Reads endpoint and starting query from data- attributes, so the page's CSP can forbid inline scripts. */
export const INIT_SCRIPT =
  `(function () {
  'use strict';
  var root = document.getElementById('graphiql');
  var fetcher = GraphiQL.createFetcher({ url: new URL(root.dataset.endpoint, window.location.href).href });
  ReactDOM.createRoot(root).render(React.createElement(GraphiQL, { fetcher: fetcher, defaultQuery: ` +
  `root.dataset.defaultQuery }));
})();
`;

export const INIT_SCRIPT_PATH = '/graphiql-init.js';

/**
 * In load order (GraphiQL's UMD bundle reads React's globals). Resolved at start-up, so a missing
 * package stops the BFF rather than breaking the page later.
 */
export function graphiqlAssets(): GraphiqlAsset[] {
  const react = installed('react');
  const reactDom = installed('react-dom');
  const graphiql = installed('graphiql');
  const packaged = (
    name: string,
    pkg: { dir: string; version: string },
    file: string,
    contentType: string,
  ): GraphiqlAsset => ({
    path: `/${name}@${pkg.version}/${file.split('/').pop()}`,
    contentType,
    source: { file: join(pkg.dir, file) },
    immutable: true,
  });
  return [
    packaged('graphiql', graphiql, 'graphiql.min.css', CSS),
    packaged('react', react, 'umd/react.production.min.js', JS),
    packaged('react-dom', reactDom, 'umd/react-dom.production.min.js', JS),
    packaged('graphiql', graphiql, 'graphiql.min.js', JS),
    { path: INIT_SCRIPT_PATH, contentType: JS, source: { text: INIT_SCRIPT }, immutable: false },
  ];
}

export function serveGraphiqlAssets(assets: readonly GraphiqlAsset[]): RequestHandler {
  const byPath = new Map(assets.map((asset) => [asset.path, asset]));
  return (req, res, next) => {
    const asset = byPath.get(req.path);
    if (!asset || (req.method !== 'GET' && req.method !== 'HEAD')) {
      next();
      return;
    }
    res.set({
      'cache-control': asset.immutable ? 'private, max-age=31536000, immutable' : 'private, no-cache',
      'x-content-type-options': 'nosniff',
    });
    if ('text' in asset.source) {
      res.type(asset.contentType).send(asset.source.text);
      return;
    }
    // The path is ours, not the client's, and an install path may hold a dot directory.
    res.sendFile(asset.source.file, { headers: { 'content-type': asset.contentType }, dotfiles: 'allow' }, (err) => {
      if (err) next(err);
    });
  };
}
