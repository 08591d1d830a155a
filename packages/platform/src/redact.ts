/**
 * Credentials never reach a log line or an error message: every URL's
 * userinfo (`mysql://user:password@`, `nats://token@`, `smtp://user:pass@`)
 * is replaced by `[redacted]`, wherever the URL turns up (a field we log, a
 * driver's error message or stack, Node's ERR_INVALID_URL `input`).
 */

/**
 * `scheme://`, then the userinfo: everything up to the last `@` before the
 * authority ends (`/`, `?`, `#`, whitespace). A `"` or `\` ends it too
 * unless escaped, so in JSON text the match never leaves its string.
 */
const URL_USERINFO = /([A-Za-z][A-Za-z0-9+.-]*:\/\/)(?:[^\s"\\/?#]|\\.)*@/g;

export const REDACTED = '[redacted]';

/** `text` with the userinfo of every URL in it replaced by `[redacted]`; works on JSON text too. */
export function redactUrlCredentials(text: string): string {
  // A line without `@` holds no userinfo: the common case costs one scan.
  if (!text.includes('@')) return text;
  return text.replace(URL_USERINFO, `$1${REDACTED}@`);
}
