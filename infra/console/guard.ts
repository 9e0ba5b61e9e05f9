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

type GuardVerdict = { ok: true } | { ok: false; status: 403 | 415 | 421; message: string };

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

/** Whom a loopback server answers: its loopback names, and which Sec-Fetch-Site values it accepts. */
interface LoopbackPolicy {
  /** `host:port` values accepted in the Host header (loopback names of the bound port). */
  hosts: readonly string[];
  /** Default: same-origin and none (typed into the address bar; programs send no header at all). */
  sites?: readonly string[];
}

/** The Host must be one of our loopback names: another name means DNS rebinding (or a proxy we did not set up). */
function checkHost(request: GuardedRequest, hosts: readonly string[]): GuardVerdict | undefined {
  const host = header(request, 'host');
  if (host === undefined || !hosts.includes(host.toLowerCase())) {
    return { ok: false, status: 421, message: 'this server answers only on its loopback address' };
  }
  return undefined;
}

/** An Origin must be our own, a Sec-Fetch-Site one of `sites`: anything else is a page of another site. */
function checkOrigin(request: GuardedRequest, sites: readonly string[]): GuardVerdict | undefined {
  const origin = header(request, 'origin');
  if (origin !== undefined && origin !== `http://${header(request, 'host')?.toLowerCase()}`) {
    return { ok: false, status: 403, message: 'cross-origin request refused' };
  }
  const site = header(request, 'sec-fetch-site');
  if (site !== undefined && !sites.includes(site)) {
    return { ok: false, status: 403, message: 'cross-site request refused' };
  }
  return undefined;
}

/**
 * Refuses what a web page could make a browser send to a server on this machine: a Host that is not one of its
 * loopback names (421: DNS rebinding), an Origin other than its own or a Sec-Fetch-Site outside the policy (403:
 * a cross-site request, a simple POST included). Programs (the AWS SDKs, the CLI) send no Origin and their own Host,
 * so they pass. Used by the local admin API and in front of the local DynamoDB and SQS endpoints.
 */
function checkLoopbackRequest(request: GuardedRequest, policy: LoopbackPolicy): GuardVerdict {
  return checkHost(request, policy.hosts) ?? checkOrigin(request, policy.sites ?? SITES) ?? { ok: true };
}

/** Sec-Fetch-Site values of requests no other site made. */
const SITES = ['same-origin', 'none'] as const;

/**
 * The console: every request must reach it by a loopback Host (421 otherwise, DNS rebinding) and come from no
 * other site (403: an Origin other than its own, a Sec-Fetch-Site other than same-origin or none, so the page is
 * opened from the address bar, not framed, linked or fetched by another site); its API also refuses a Sec-Fetch-Site
 * other than same-origin and a missing or wrong per-server token (403). Only our own page knows the token, and the
 * browser never lets another origin set it.
 */
function checkRequest(request: GuardedRequest, policy: GuardPolicy): GuardVerdict {
  const wrongHost = checkHost(request, policy.hosts);
  if (wrongHost) return wrongHost;
  if (!request.path.startsWith('/api/')) return checkOrigin(request, SITES) ?? { ok: true };
  const foreign = checkOrigin(request, ['same-origin']);
  if (foreign) return foreign;
  if (!sameToken(header(request, TOKEN_HEADER), policy.token)) {
    return { ok: false, status: 403, message: `missing or wrong ${TOKEN_HEADER}: reload the console page` };
  }
  return { ok: true };
}

/**
 * A request that may change something (any method but GET and HEAD) must say its body is JSON: a form or a
 * `fetch` without a preflight can only send text/plain, urlencoded or multipart bodies (415 otherwise).
 */
function checkJsonBody(request: GuardedRequest): GuardVerdict {
  if (request.method === 'GET' || request.method === 'HEAD') return { ok: true };
  const mediaType = header(request, 'content-type')?.split(';')[0]?.trim().toLowerCase();
  if (mediaType === 'application/json') return { ok: true };
  return { ok: false, status: 415, message: 'a request that changes something needs content-type: application/json' };
}

export {
  checkJsonBody,
  checkLoopbackRequest,
  checkRequest,
  type GuardedRequest,
  type GuardPolicy,
  type GuardVerdict,
  type LoopbackPolicy,
  TOKEN_HEADER,
};
