/**
 * `scheme://` then the userinfo, up to the last `@` before the authority ends.
 * An unescaped `"` or `\` also ends it, so in JSON text a match never leaves its string.
 */
const URL_USERINFO = /([A-Za-z][A-Za-z0-9+.-]*:\/\/)(?:[^\s"\\/?#]|\\.)*@/g;

export const REDACTED = '[redacted]';

/** Credentials never reach a log line or error: every URL's userinfo becomes `[redacted]`; works on JSON text too. */
export function redactUrlCredentials(text: string): string {
  if (!text.includes('@')) return text;
  return text.replace(URL_USERINFO, `$1${REDACTED}@`);
}
