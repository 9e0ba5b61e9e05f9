/** A request target split into its path and query, or why it is not one a local server answers (a 400). */
type RequestTarget = { ok: true; pathname: string; query: Record<string, string> } | { ok: false; problem: string };

/**
 * Splits an HTTP request target without resolving it against any base: only the origin form (RFC 9112 §3.2.1) a
 * program sends, one `/` then a path and an optional `?query`. A `//…` target (a URL parser reads `//x/health` as
 * host `x`), the absolute and asterisk forms (`http://…`, `*`), an empty target and a `#` are refused, never
 * guessed at; nothing here throws. The path is returned as sent (no dot-segment or percent decoding).
 */
function parseRequestTarget(raw: string): RequestTarget {
  if (!raw.startsWith('/') || raw.startsWith('//')) {
    return { ok: false, problem: 'the request target must be a path starting with a single /' };
  }
  if (raw.includes('#')) return { ok: false, problem: 'a fragment (#) is not part of a request' };
  const mark = raw.indexOf('?');
  const pathname = mark === -1 ? raw : raw.slice(0, mark);
  const search = mark === -1 ? '' : raw.slice(mark + 1);
  // URLSearchParams decodes leniently (a malformed escape stays as sent) and never throws.
  return { ok: true, pathname, query: Object.fromEntries(new URLSearchParams(search)) };
}

export { parseRequestTarget, type RequestTarget };
