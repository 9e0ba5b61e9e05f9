import { timingSafeEqual } from 'node:crypto';

/** Header carrying the per-server token on every API call of the page. */
const TOKEN_HEADER = 'x-leasefence-console-token';

/** What the guard looks at in a request. */
interface GuardedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
}

/** Whom the server answers: the token it handed to its own page, and the host names it is reached by. */
interface GuardPolicy {
  token: string;
  /** `host:port` values accepted in the Host header (loopback names of the bound port). */
  hosts: readonly string[];
}

type GuardVerdict = { ok: true } | { ok: false; status: 403 | 421; message: string };

function header(request: GuardedRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function sameToken(given: string | undefined, expected: string): boolean {
  if (given === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Refuses what a cross-site page or a DNS-rebinding attack could send: a Host that is not our loopback name
 * (421); for the API, a missing or wrong per-server token, an Origin other than our own, or a Sec-Fetch-Site other
 * than same-origin (403). Only our own page knows the token, and the browser never lets another origin set it.
 */
function checkRequest(request: GuardedRequest, policy: GuardPolicy): GuardVerdict {
  const host = header(request, 'host');
  if (host === undefined || !policy.hosts.includes(host.toLowerCase())) {
    return { ok: false, status: 421, message: 'this console answers only on its loopback address' };
  }
  if (!request.path.startsWith('/api/')) return { ok: true };
  const origin = header(request, 'origin');
  if (origin !== undefined && origin !== `http://${host.toLowerCase()}`) {
    return { ok: false, status: 403, message: 'cross-origin request refused' };
  }
  const site = header(request, 'sec-fetch-site');
  if (site !== undefined && site !== 'same-origin') {
    return { ok: false, status: 403, message: 'cross-site request refused' };
  }
  if (!sameToken(header(request, TOKEN_HEADER), policy.token)) {
    return { ok: false, status: 403, message: `missing or wrong ${TOKEN_HEADER}: reload the console page` };
  }
  return { ok: true };
}

export { checkRequest, type GuardPolicy, type GuardVerdict, TOKEN_HEADER };
