import { Agent, createServer, request as forward, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { checkLoopbackRequest } from '../console/guard.js';
import { loopbackHosts } from './admin-server.js';

/** A guarded loopback endpoint in front of an engine: the port clients use, and how to stop it. */
interface GuardedEndpoint {
  port: number;
  stop(): Promise<void>;
}

/** Headers of one hop only (RFC 9110 §7.6.1): never forwarded. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authorization', 'te', 'upgrade']);

function forwardable(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !HOP_BY_HOP.has(name)));
}

/** Where the engine behind the endpoint listens: a Unix domain socket (or named pipe) path. */
interface Upstream {
  socketPath: string;
}

/**
 * Listens on 127.0.0.1:`port` (0: any free port) and forwards to the engine on `upstream.socketPath` only what
 * passes the loopback guard (infra/console/guard.ts): the AWS SDKs send no Origin and the endpoint's own Host, a web
 * page sends a foreign Origin or Sec-Fetch-Site (403) or, through DNS rebinding, a foreign Host (421). dynalite
 * answers CORS for any Origin itself (`Access-Control-Allow-Origin: *`), so without this any site could read or wipe
 * the local tables. The Host header is forwarded unchanged (fauxqs builds queue URLs from it). A taken port rejects
 * with EADDRINUSE.
 */
async function startGuardedEndpoint(upstream: Upstream, port: number): Promise<GuardedEndpoint> {
  const agent = new Agent({ keepAlive: true });
  let hosts: string[] = [];
  const server: Server = createServer((request, response) => {
    const verdict = checkLoopbackRequest(
      { method: request.method ?? 'GET', path: request.url ?? '/', headers: request.headers },
      { hosts },
    );
    if (!verdict.ok) {
      request.resume();
      response.writeHead(verdict.status, { 'content-type': 'application/json' });
      response.end(`${JSON.stringify({ error: 'refused', message: verdict.message })}\n`);
      return;
    }
    const outbound = forward(
      {
        socketPath: upstream.socketPath,
        method: request.method,
        path: request.url,
        headers: forwardable(request.headers),
        agent,
      },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, forwardable(answer.headers));
        answer.pipe(response);
      },
    );
    outbound.on('error', () => {
      if (!response.headersSent) response.writeHead(502, { 'content-type': 'application/json' });
      response.end();
    });
    request.pipe(outbound);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const actual = (server.address() as AddressInfo).port;
  hosts = loopbackHosts(actual);
  return {
    port: actual,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        agent.destroy();
      }),
  };
}

export { type GuardedEndpoint, startGuardedEndpoint, type Upstream };
