import { createHash, randomBytes } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname } from 'node:path';
import { parseRequestTarget } from '../../lib/admin/request-target.js';
import { handleAdminRequest } from '../../lib/admin/router.js';
import { readBody } from '../local/admin-server.js';
import { type Asset, IMPORT_MAP, loadAssets, UI_DIR } from './assets.js';
import { serveConsoleApi } from './console-api.js';
import type { ConsoleContext } from './context.js';
import { checkRequest } from './guard.js';
import { renderPage } from './page.js';

/** Largest request body accepted (a reason and a few fields). */

/** A running console: where to open it, and how to stop it. */
interface ConsoleServer {
  url: string;
  port: number;
  stop(): Promise<void>;
}

/** Where to listen: loopback unless the operator explicitly binds elsewhere (never the default). */
interface ConsoleOptions {
  port: number;
  host?: string;
}

/** Headers every answer carries: no framing (clickjacking), no sniffing, scripts only from here and the import map. */
function securityHeaders(importMapHash: string): Record<string, string> {
  return {
    'content-security-policy': `default-src 'none'; script-src 'self' 'sha256-${importMapHash}'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
    'x-frame-options': 'DENY',
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cache-control': 'no-store',
  };
}

/** The API: `/api/target` describes the target; every other `/api/…` path is the admin router itself. */
async function serveApi(
  context: ConsoleContext,
  request: IncomingMessage,
  url: { pathname: string; query: Record<string, string> },
): Promise<{ status: number; body: unknown }> {
  const path = url.pathname.slice('/api'.length);
  if (path === '/target') return { status: 200, body: { target: context.target, actor: context.actor } };
  const own = await serveConsoleApi(context, request.method ?? 'GET', path);
  if (own) return own;
  const body = await readBody(request);
  if (body === undefined) return { status: 413, body: { error: 'body_too_large' } };
  const answer = await handleAdminRequest(
    {
      method: request.method ?? 'GET',
      path,
      query: url.query,
      body,
      actor: context.actor,
    },
    context.admin,
  );
  return { status: answer.statusCode, body: answer.body };
}

/**
 * Serves the operator console: the page, its modules (ours and preact/htm from node_modules) and `/api/…`, which
 * is the admin API's router, so every action is the same audited admin operation as the CLI and the Lambda use.
 * Listens on 127.0.0.1 by default; every API call needs the per-server token the page was given, a same-origin
 * Origin/Sec-Fetch-Site, and a loopback Host (DNS rebinding). A taken port rejects with EADDRINUSE.
 */
async function startConsoleServer(context: ConsoleContext, options: ConsoleOptions): Promise<ConsoleServer> {
  const host = options.host ?? '127.0.0.1';
  const token = randomBytes(32).toString('base64url');
  // Every file of the UI folder (they all have an extension; folders do not).
  const uiFiles = (await readdir(UI_DIR, { recursive: true })).filter((name) => extname(name) !== '');
  const assets = await loadAssets(uiFiles);
  const importMapHash = createHash('sha256').update(IMPORT_MAP).digest('base64');
  const headers = securityHeaders(importMapHash);
  let hosts: string[] = [];

  const send = (response: ServerResponse, status: number, type: string, body: Buffer | string) => {
    response.writeHead(status, { ...headers, 'content-type': type });
    response.end(body);
  };
  const sendJson = (response: ServerResponse, status: number, body: unknown) =>
    send(response, status, 'application/json; charset=utf-8', `${JSON.stringify(body)}\n`);

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    // Split without a URL parser, which would read `//x/…` as host `x` (or throw on `//`): a malformed target is a 400.
    const url = parseRequestTarget(request.url ?? '/');
    if (!url.ok) return sendJson(response, 400, { error: 'invalid_input', message: `invalid path: ${url.problem}` });
    const verdict = checkRequest(
      { method: request.method ?? 'GET', path: url.pathname, headers: request.headers },
      { token, hosts },
    );
    if (!verdict.ok) return sendJson(response, verdict.status, { error: 'refused', message: verdict.message });
    if (url.pathname.startsWith('/api/')) {
      const answer = await serveApi(context, request, url);
      return sendJson(response, answer.status, answer.body);
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      return sendJson(response, 405, { error: 'method_not_allowed' });
    }
    if (url.pathname === '/' || url.pathname === '/index.html') {
      return send(
        response,
        200,
        'text/html; charset=utf-8',
        renderPage({ token, target: context.target, importMap: IMPORT_MAP }),
      );
    }
    const asset: Asset | undefined = assets.get(url.pathname);
    if (!asset) return sendJson(response, 404, { error: 'not_found' });
    return send(response, 200, asset.type, asset.body);
  };

  const server: Server = createServer((request, response) => {
    handle(request, response).catch(() => {
      if (!response.headersSent) sendJson(response, 500, { error: 'internal', message: 'internal error' });
      else response.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  hosts = [`127.0.0.1:${port}`, `localhost:${port}`, `${host}:${port}`];
  return {
    url: `http://${host}:${port}/`,
    port,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export { type ConsoleOptions, type ConsoleServer, startConsoleServer };
