import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { createEmailRenderer } from './email/templates';
import { HANDLERS, handlerFor } from './handlers';
import { sampleEnvelope } from './sample-events';

/**
 * `npm run email:preview -w @inventario/notifier [-- <dir>]`: renders every
 * template with sample events into `<dir>` (default services/notifier/preview/)
 * as `<template>.html` and `.txt`, plus a `producto-creado-hostil` pair whose
 * product is named `<script>alert(1)</script>`, and prints the paths. Open
 * the .html files in a browser. Needs no SMTP server, NATS or configuration.
 */

/** Renders the previews into `dir`; returns the files written. */
export function writePreviews(dir: string): string[] {
  const renderer = createEmailRenderer(HANDLERS.map((h) => h.template));
  const productoCreado = handlerFor('ProductoCreado');
  const cases = [
    ...HANDLERS.map((handler) => ({ handler, file: handler.template, envelope: sampleEnvelope(handler.eventType) })),
    {
      handler: productoCreado,
      file: `${productoCreado.template}-hostil`,
      envelope: sampleEnvelope('ProductoCreado', {
        nombre: '<script>alert(1)</script>',
        usuario: '"><img src=x onerror=alert(2)>',
      }),
    },
  ];
  mkdirSync(dir, { recursive: true });
  const written: string[] = [];
  for (const { handler, file, envelope } of cases) {
    const preparation = handler.prepare(JSON.stringify(envelope), 'Service');
    if (!preparation.ok) throw new Error(`sample ${handler.eventType} is invalid: ${preparation.reason}`);
    const email = renderer.render(handler.template, preparation.prepared.model);
    for (const [ext, body] of [
      ['html', email.html],
      ['txt', `Subject: ${email.subject}\n\n${email.text}`],
    ] as const) {
      const target = path.join(dir, `${file}.${ext}`);
      writeFileSync(target, body);
      written.push(target);
    }
  }
  return written;
}

if (require.main === module) {
  const dir = path.resolve(process.argv[2] ?? path.join(__dirname, '..', 'preview'));
  for (const file of writePreviews(dir)) process.stdout.write(`${file}\n`);
}
