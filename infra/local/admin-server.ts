import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AdminDeps } from '../../lib/admin/deps.js';
import { malformedPathReply, parseRequestTarget, pathProblem } from '../../lib/admin/request-target.js';
import { handleAdminRequest } from '../../lib/admin/router.js';
import { checkJsonBody, checkLoopbackRequest, type LoopbackPolicy } from '../console/guard.js';
import { ACTOR_HEADER, DEFAULT_LOCAL_ACTOR } from './local-actor.js';

/** Largest request body accepted, in bytes (admin bodies are a reason and a few fields). */
const MAX_BODY_BYTES = 64 * 1024;

/** A running local admin API. */
interface LocalAdminServer {
  url: string;
  port: number;
  stop(): Promise<void>;
}

/** Reads the body up to the limit; undefined when it is larger (answered with 413). */
async function readBody(request: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function reply(response: ServerResponse, statusCode: number, body: Record<string, unknown>): void {
  response.writeHead(statusCode, { 'content-type': 'application/json' });
  response.end(`${JSON.stringify(body)}\n`);
}

/**
 * One HTTP exchange: the same pure router the admin Lambda uses, with the actor from a header. A request a web page
 * could have sent (foreign Host or Origin, cross-site, a change without a JSON body) is refused before its body is read.
 */
async function serve(
  deps: AdminDeps,
  policy: LoopbackPolicy,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const guarded = { method: request.method ?? 'GET', path: request.url ?? '/', headers: request.headers };
  const checked = checkLoopbackRequest(guarded, policy);
  const verdict = checked.ok ? checkJsonBody(guarded) : checked;
  if (!verdict.ok) {
    reply(response, verdict.status, { error: 'refused', message: verdict.message });
    return;
  }
  const body = await readBody(request);
  if (body === undefined) {
    reply(response, 413, { error: 'body_too_large', message: `bodies are limited to ${MAX_BODY_BYTES} bytes` });
    return;
  }
  // Split without a URL parser: it would read `//x/health` as host `x` (or throw on `//`) and resolve
  // `/items/acme/../../dlq/redrive` into another route. Every malformed target is a 400 before any routing.
  const target = parseRequestTarget(request.url ?? '/');
  const problem = target.ok ? pathProblem(target.pathname) : target.problem;
  if (!target.ok || problem !== undefined) {
    const refused = malformedPathReply(problem ?? 'malformed path');
    reply(response, refused.statusCode, refused.body);
    return;
  }
  const header = request.headers[ACTOR_HEADER];
  const actor = (Array.isArray(header) ? header[0] : header) ?? DEFAULT_LOCAL_ACTOR;
  const answer = await handleAdminRequest(
    { method: request.method ?? 'GET', path: target.pathname, query: target.query, body, actor },
    deps,
  );
  reply(response, answer.statusCode, answer.body);
}

/** The Host values a server bound to 127.0.0.1:`port` is reached by. */
function loopbackHosts(port: number): string[] {
  return [`127.0.0.1:${port}`, `localhost:${port}`];
}

/**
 * Serves the admin API (lib/admin router) on 127.0.0.1 over plain HTTP. The actor is the `x-leasefence-actor`
 * header or "local-operator": there is no IAM locally, unlike the AWS_IAM Function URL, so the server answers
 * programs on this machine only: a foreign Host (DNS rebinding, 421), a foreign Origin or a cross-site request
 * (403) and a POST without `content-type: application/json` (415) are refused (infra/console/guard.ts). A target
 * that is not a plain path (`//…`, `http://…`, `*`, a `#`), or a path with dot segments or encoded slashes, gets a
 * 400 before any routing. A taken port rejects with the listen error
 * (EADDRINUSE).
 */
async function startAdminServer(deps: AdminDeps, port: number): Promise<LocalAdminServer> {
  const policy: { hosts: string[] } = { hosts: [] };
  const server: Server = createServer((request, response) => {
    serve(deps, policy, request, response).catch(() => {
      if (!response.headersSent) reply(response, 500, { error: 'internal', message: 'internal error' });
      else response.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const actual = (server.address() as AddressInfo).port;
  policy.hosts = loopbackHosts(actual);
  return {
    url: `http://127.0.0.1:${actual}`,
    port: actual,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export { type LocalAdminServer, loopbackHosts, MAX_BODY_BYTES, readBody, startAdminServer };
