import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import Handlebars from 'handlebars';
import type { EmailModel } from '../handlers';

/**
 * Email templates: `templates/<name>.html.hbs` and `<name>.txt.hbs`, one pair
 * per event type, sharing the partials in `templates/partials/` (`layout`,
 * `row`). They are files so they can be edited and previewed
 * (`npm run email:preview`) without touching code, and compiled once at
 * start, so a missing or broken template stops the notifier at once instead
 * of failing every email.
 *
 * Escaping: the HTML templates use `{{ }}` only, which HTML-escapes every
 * value (names come from users: `<script>` must arrive as text). The plain
 * text part is compiled with `noEscape`, since `&lt;` would be noise there.
 */

/** Beside dist/ and src/: `services/notifier/templates`; ships with the package. */
export const TEMPLATES_DIR = path.join(__dirname, '..', '..', 'templates');

export interface RenderedEmail {
  subject: string;
  html: string;
  text: string;
}

export interface EmailRenderer {
  /** Renders the template pair `template` (as named by a handler) for `model`. */
  render(template: string, model: EmailModel): RenderedEmail;
}

type Template = Handlebars.TemplateDelegate<EmailModel>;

/**
 * One isolated Handlebars environment per format (no global registrations),
 * with that format's partials. `strict` makes a template that names a field
 * the model lacks throw, which the preview and the tests catch.
 */
function createEnvironment(dir: string, format: 'html' | 'txt') {
  const env = Handlebars.create();
  const options: CompileOptions = { strict: true, noEscape: format === 'txt' };
  const suffix = `.${format}.hbs`;
  // compile() is lazy: parse first, so a syntax error names its file at start.
  const compile = (file: string): Template => {
    const source = readFileSync(file, 'utf8');
    try {
      env.parse(source);
    } catch (err) {
      throw new Error(`email template ${path.basename(file)}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
    return env.compile<EmailModel>(source, options);
  };
  const partialsDir = path.join(dir, 'partials');
  for (const file of readdirSync(partialsDir).filter((f) => f.endsWith(suffix))) {
    env.registerPartial(file.slice(0, -suffix.length), compile(path.join(partialsDir, file)));
  }
  return (name: string): Template => compile(path.join(dir, `${name}${suffix}`));
}

/** Compiles the pair of every name in `templates`; throws if a file is missing or does not parse. */
export function createEmailRenderer(templates: readonly string[], dir: string = TEMPLATES_DIR): EmailRenderer {
  const html = createEnvironment(dir, 'html');
  const text = createEnvironment(dir, 'txt');
  const compiled = new Map(templates.map((name) => [name, { html: html(name), text: text(name) }]));
  return {
    render(template, model) {
      const pair = compiled.get(template);
      if (!pair) throw new Error(`no email template named ${template}`);
      return { subject: model.heading, html: pair.html(model), text: pair.text(model) };
    },
  };
}
