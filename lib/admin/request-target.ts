import type { AdminReply } from './responses.js';

/*
 * The one rule for what an admin path may look like, for every door that takes a raw path from the wire: the admin
 * Lambda (the Function URL's rawPath) and the local admin server (the request target). The router would read
 * `//health` as `/health` (it strips leading slashes) and a URL parser reads `//x/health` as host `x`, so anything
 * but a plain path is refused with a 400 before routing, never guessed at. The console's in-process API (its own
 * server, which encodes operation ids with %2F) routes without this rule.
 */

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

/**
 * Why a raw admin path (no query) is malformed, or undefined for a plain one: not starting with a single `/`,
 * an empty segment (`a//b`, a trailing `/`), a dot segment (`.`/`..`, also percent-encoded), an encoded slash or
 * a backslash (operation ids with `/` are sent with plain slashes; the router joins the segments). Never throws.
 */
function pathProblem(rawPath: string): string | undefined {
  if (!rawPath.startsWith('/') || rawPath.startsWith('//')) return 'the path must start with a single /';
  if (/%2f|%5c|\\/i.test(rawPath)) return 'encoded slashes and backslashes are not allowed';
  if (rawPath === '/') return undefined;
  const segments = rawPath.slice(1).split('/');
  if (segments.includes('')) return 'empty path segments (// or a trailing /) are not allowed';
  const dotSegment = segments.some((segment) => /^(\.|%2e){1,2}$/i.test(segment));
  return dotSegment ? 'dot segments (. and ..) are not allowed' : undefined;
}

/** The 400 a malformed path gets (the same body as any invalid input, naming `path`). */
function malformedPathReply(problem: string): AdminReply {
  return {
    statusCode: 400,
    body: { error: 'invalid_input', message: `invalid path: ${problem}`, issues: [{ path: 'path', message: problem }] },
  };
}

export { malformedPathReply, parseRequestTarget, pathProblem, type RequestTarget };
