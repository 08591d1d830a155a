import type { Browser, Page } from 'puppeteer-core';
import { openApiDocument } from '../src/openapi/document';
import { artifactPath, chromiumInstalled, launchChromium } from '@inventario/testkit/browser';
import { startTestStack, TEST_PASSWORD, TEST_USER, type TestStack } from './support/stack';
import { graphql } from './graphql-support/graphql-client';

/**
 * The two pages a person opens in a browser, in headless Chromium against
 * the real stack: the API reference at /api/docs/ and GraphiQL at
 * /api/graphql. Each must work at first sight: the reference renders every
 * operation of the document with no warning or error box, GraphiQL's first
 * query runs as it is and shows data, neither page throws, logs an error or
 * asks anything of another origin. A screenshot of each is left under
 * test-artifacts/browser/.
 *
 * The pages are opened under a name that is not a loopback one, as behind
 * a real host name (Swagger UI treats `localhost` and `127.0.0.1` apart).
 */
const HOST = 'inventario.test';
const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

let stack: TestStack;
let browser: Browser;
let origin: string;

/** What a page did besides rendering: uncaught exceptions, console errors, requests to another origin (refused). */
interface PageTrouble {
  errors: string[];
  foreignRequests: string[];
}

/** A new page with the BFF's Basic credentials, recording its trouble; requests to another origin never leave. */
async function openPage(): Promise<{ page: Page; trouble: PageTrouble }> {
  const page = await browser.newPage();
  const trouble: PageTrouble = { errors: [], foreignRequests: [] };
  await page.authenticate({ username: TEST_USER, password: TEST_PASSWORD });
  page.on('pageerror', (err) => trouble.errors.push(`uncaught: ${err instanceof Error ? err.message : String(err)}`));
  page.on('console', (message) => {
    if (message.type() === 'error') trouble.errors.push(`console: ${message.text()} (${message.location().url ?? ''})`);
  });
  page.on('response', (response) => {
    if (response.status() >= 400)
      trouble.errors.push(`${response.status()} ${response.request().method()} ${response.url()}`);
  });
  await page.setRequestInterception(true);
  page.on('request', (request) => {
    const url = request.url();
    if (url.startsWith(`${origin}/`) || url.startsWith('data:')) return void request.continue();
    trouble.foreignRequests.push(url);
    void request.abort('blockedbyclient');
  });
  return { page, trouble };
}

/** The little of the DOM the page functions below touch (the tests are compiled without the DOM's types). */
interface PageNode {
  textContent: string | null;
  getAttribute(name: string): string | null;
  querySelector(selector: string): PageNode | null;
}

/** GraphiQL's editors (CodeMirror 5, which keeps its text in the editor, not all of it in the DOM). */
const QUERY_EDITOR = '.graphiql-query-editor .CodeMirror';
const RESPONSE_EDITOR = '.result-window .CodeMirror';

function editorText(page: Page, selector: string): Promise<string> {
  return page.$eval(selector, (editor) =>
    (editor as unknown as { CodeMirror: { getValue(): string } }).CodeMirror.getValue(),
  );
}

const describeWithBrowser = chromiumInstalled() ? describe : describe.skip;

describeWithBrowser('in a browser', () => {
  beforeAll(async () => {
    stack = await startTestStack('browser');
    origin = `http://${HOST}:${new URL(stack.baseUrl).port}`;
    browser = await launchChromium([HOST]);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.close();
  });

  it('/api/docs/ renders every operation of the document, with no warning or error box', async () => {
    const documented = Object.entries(openApiDocument.paths)
      .flatMap(([path, item]) => METHODS.filter((m) => item[m] !== undefined).map((m) => `${m.toUpperCase()} ${path}`))
      .sort();
    const { page, trouble } = await openPage();

    await page.goto(`${origin}/api/docs/`, { waitUntil: 'load' });
    // Each operation is one summary row (an operation under two tags would be two: hence the set).
    const rendered = () =>
      page.$$eval('.swagger-ui .opblock-summary', (rows) =>
        (rows as unknown as PageNode[]).map((row) => {
          const method = row.querySelector('.opblock-summary-method')?.textContent ?? '?';
          return `${method} ${row.querySelector('.opblock-summary-path')?.getAttribute('data-path') ?? '?'}`;
        }),
      );
    // Until every operation is there; if some never are, the comparison below names them.
    await page
      .waitForFunction(`document.querySelectorAll('.swagger-ui .opblock-summary').length >= ${documented.length}`, {
        timeout: 20_000,
      })
      .catch(() => undefined);
    const boxes = await page.$$eval('.swagger-ui .errors-wrapper, .swagger-ui .version-pragma', (found) =>
      (found as unknown as PageNode[]).map((box) => (box.textContent ?? '').replace(/\s+/g, ' ').trim()),
    );
    await page.screenshot({ path: artifactPath('api-docs.png'), fullPage: true });

    expect(boxes).toEqual([]);
    expect([...new Set(await rendered())].sort()).toEqual(documented);
    expect(
      await page.$eval('.swagger-ui .info .title', (title) => (title as unknown as PageNode).textContent),
    ).toContain(openApiDocument.info.title);
    expect(trouble).toEqual({ errors: [], foreignRequests: [] });
  });

  it.each([
    ['ProductoUpdate', ['nombre', 'descripcion', 'precio', 'cantidadEnStock', 'bodegaId']],
    ['BodegaUpdate', ['nombre', 'ubicacion', 'capacidad']],
  ])(
    '/api/docs/ shows %s under Schemas as the fields it takes, not as alternatives ("object | any | any")',
    async (name, fields) => {
      const { page, trouble } = await openPage();
      await page.goto(`${origin}/api/docs/`, { waitUntil: 'load' });
      // Swagger UI 5 renders an OpenAPI 3.1 schema as a JSON Schema 2020-12 article: a head (its name and type) and a body.
      const model = `[...document.querySelectorAll('.swagger-ui section.models article[data-json-schema-level="0"]')].find((a) => a.querySelector('.json-schema-2020-12__title')?.textContent === '${name}')`;
      const head = () =>
        page.evaluate(
          `(${model}).querySelector('.json-schema-2020-12-head').textContent.replace(/\\s+/g, ' ').trim()`,
        ) as Promise<string>;
      await page.waitForFunction(`!!(${model})`, { timeout: 20_000 });
      const collapsed = await head();
      await page.evaluate(`(${model}).querySelector('.json-schema-2020-12-expand-deep-button').click()`);
      await page
        .waitForFunction(`(${model}).querySelectorAll('article').length > 0`, { timeout: 10_000 })
        .catch(() => undefined);
      // The schema's own properties (its level-1 articles), and any anyOf / oneOf keyword of the schema itself (not of a property).
      const shown = (await page.evaluate(`(() => {
      const m = ${model};
      const own = (el) => el.parentElement.closest('article') === m;
      return {
        properties: [...m.querySelectorAll('article[data-json-schema-level="1"]')].filter(own).map((a) => a.querySelector('.json-schema-2020-12__title')?.textContent),
        alternatives: [...m.querySelectorAll('[class*="keyword--anyOf"], [class*="keyword--oneOf"]')].filter(own).length,
      };
    })()`)) as { properties: string[]; alternatives: number };
      const article = await page.evaluateHandle(model);
      await (article as unknown as { screenshot(o: { path: string }): Promise<unknown> }).screenshot({
        path: artifactPath(`api-docs-${name}.png`),
      });

      expect(collapsed).toBe(`${name}Expand allobject≥ 1 properties`);
      expect(shown.alternatives).toBe(0);
      expect(shown.properties.slice(0, fields.length)).toEqual(fields);
      expect(trouble).toEqual({ errors: [], foreignRequests: [] });
    },
  );

  it('GraphiQL runs its first query as it is, and shows the data', async () => {
    // The sample data, as `npm run seed` loads it.
    const seeded = await stack.request('POST', '/api/graphql', {
      body: { query: 'mutation { inicializarBaseDatos }' },
    });
    expect(seeded.body).toEqual({ data: { inicializarBaseDatos: expect.stringMatching(/10 productos nuevos/) } });
    const { page, trouble } = await openPage();

    await page.goto(`${origin}/api/graphql`, { waitUntil: 'load' });
    await page.waitForSelector(QUERY_EDITOR);
    await page.click('.graphiql-execute-button');
    await page.waitForFunction(`document.querySelector('${RESPONSE_EDITOR}')?.CodeMirror.getValue().trim() > ''`);
    const shown = JSON.parse(await editorText(page, RESPONSE_EDITOR));
    await page.screenshot({ path: artifactPath('graphiql.png') });

    // What the API itself answers to the page's query: the ten sample products.
    expect(shown).toEqual((await graphql(stack, await editorText(page, QUERY_EDITOR))).body);
    expect(shown.data.productos).toHaveLength(10);
    expect(trouble).toEqual({ errors: [], foreignRequests: [] });
  });
});
