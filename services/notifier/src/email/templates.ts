import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import Handlebars from 'handlebars';
import type { EmailModel } from '../handlers';

/**
 * Templates are files, editable and previewable without code, compiled at
 * start so a broken one stops the notifier instead of failing every email.
 * HTML templates use `{{ }}` only, escaping user-supplied values; the text
 * part is compiled with `noEscape`, where `&lt;` would be noise.
 */

/** Ships with the package, beside dist/ and src/. */
export const TEMPLATES_DIR = path.join(__dirname, '..', '..', 'templates');

export interface RenderedEmail {
  subject: string;
  html: string;
  text: string;
}

export interface EmailRenderer {
  render(template: string, model: EmailModel): RenderedEmail;
}

type Template = Handlebars.TemplateDelegate<EmailModel>;

/** No global registrations; `strict` makes a template naming a missing field throw (preview and tests catch it). */
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
      throw new Error(`email template ${path.basename(file)}: ${err instanceof Error ? err.message : String(err)}`, {
        cause: err,
      });
    }
    return env.compile<EmailModel>(source, options);
  };
  const partialsDir = path.join(dir, 'partials');
  for (const file of readdirSync(partialsDir).filter((f) => f.endsWith(suffix))) {
    env.registerPartial(file.slice(0, -suffix.length), compile(path.join(partialsDir, file)));
  }
  return (name: string): Template => compile(path.join(dir, `${name}${suffix}`));
}

/** Throws if a file is missing or does not parse. */
export function createEmailRenderer(templates: readonly string[], dir: string = TEMPLATES_DIR): EmailRenderer {
  const html = createEnvironment(dir, 'html');
  const text = createEnvironment(dir, 'txt');
  const compiled = new Map(templates.map((name) => [name, { html: html(name), text: text(name) }]));
  return {
    render(template, model) {
      const pair = compiled.get(template);
      if (!pair) throw new Error(`no email template named ${template}`);
      return { subject: model.subject, html: pair.html(model), text: pair.text(model) };
    },
  };
}
