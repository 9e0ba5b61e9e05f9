import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { type ForwardedAnswer, forwardRequest } from '../../infra/testing/http-forward.js';

/** One request as the proxy saw it: the DynamoDB operation (from X-Amz-Target) and its JSON body. */
interface ProxiedRequest {
  readonly operation: string;
  readonly body: Record<string, unknown>;
  readonly text: string;
}

/**
 * What the proxy does to a matching request:
 * `hold` — keep it in the network until `release` settles, then forward it (a delayed request);
 * `delay` — forward it after `ms` milliseconds;
 * `drop_response` — forward it, let the engine commit, then reset the client's connection (ambiguous outcome);
 * `reset_request` — reset the client's connection without forwarding (the engine never sees it).
 */
type Fault =
  | { readonly kind: 'hold'; readonly release: Promise<unknown> }
  | { readonly kind: 'delay'; readonly ms: number }
  | { readonly kind: 'drop_response' }
  | { readonly kind: 'reset_request' };

/** A fault for the next `times` requests that `match` selects (default once). */
interface FaultRule {
  readonly match: (request: ProxiedRequest) => boolean;
  readonly fault: Fault;
  readonly times?: number;
}

/** A rule once installed: how often it fired, how many held requests are still in the network, how many reached the engine. */
interface InstalledRule {
  hits(): number;
  pending(): number;
  /** Faulted requests the engine has answered (a held request counts once it was released and processed). */
  forwarded(): number;
  remove(): void;
}

interface RuleState {
  readonly rule: FaultRule;
  hits: number;
  pending: number;
  forwarded: number;
  removed: boolean;
}

/**
 * An HTTP proxy on 127.0.0.1 between DynamoDB clients and the engine that injects network faults per
 * request: delays, held requests, responses dropped after the engine committed, resets, and refused
 * connections (`refuseConnections` closes the port; `acceptConnections` opens it again); `halt` stops all
 * traffic and waits until the engine is idle (before a test kills or copies it).
 */
class FaultProxy {
  /** Requests seen per DynamoDB operation, faulted or not. */
  readonly seen: Record<string, number> = {};
  private readonly rules: RuleState[] = [];
  private readonly sockets = new Set<Socket>();
  private readonly upstream: URL;
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  private server: http.Server;
  private port = 0;
  private injected = 0;
  /** Requests forwarded to the engine and not answered yet. */
  private forwarding = 0;
  private halted: { gate: Promise<void>; release: () => void; dropResponses: boolean } | undefined;

  private constructor(upstreamEndpoint: string) {
    this.upstream = new URL(upstreamEndpoint);
    this.server = this.createServer();
  }

  /** Starts a proxy for `upstreamEndpoint` on a free loopback port. */
  static async start(upstreamEndpoint: string): Promise<FaultProxy> {
    const proxy = new FaultProxy(upstreamEndpoint);
    await proxy.listen(0);
    return proxy;
  }

  /** The endpoint clients use instead of the engine's. */
  get endpoint(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Faults injected so far (each held, delayed, dropped or reset request, each refused connection window). */
  faultsInjected(): number {
    return this.injected;
  }

  /** Installs a rule; rules are tried in installation order and the first match with hits left applies. */
  inject(rule: FaultRule): InstalledRule {
    const state: RuleState = { rule, hits: 0, pending: 0, forwarded: 0, removed: false };
    this.rules.push(state);
    return {
      hits: () => state.hits,
      pending: () => state.pending,
      forwarded: () => state.forwarded,
      remove: () => {
        state.removed = true;
      },
    };
  }

  /**
   * Stops forwarding: new requests wait in the proxy until `resume`; resolves once the engine has answered every
   * request it had (bounded wait), so nothing is half-done inside it. With `dropResponses` those last answers
   * never reach their clients (committed, never acknowledged), as when a database dies right after a commit.
   */
  async halt(options: { dropResponses: boolean }): Promise<void> {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    this.halted = { gate, release, dropResponses: options.dropResponses };
    for (let wait = 0; wait < 1_000 && this.forwarding > 0; wait += 1) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    if (this.forwarding > 0) throw new Error(`${this.forwarding} requests still inside the engine after 10 s`);
  }

  /** True while halted with `dropResponses`: the answers of requests still inside the engine never arrive. */
  private dropsAnswers(): boolean {
    return this.halted?.dropResponses === true;
  }

  /** Forwards again, the held requests first. */
  resume(): void {
    const halted = this.halted;
    this.halted = undefined;
    halted?.release();
  }

  /** Closes the port and resets every open connection: new requests get ECONNREFUSED until accepted again. */
  async refuseConnections(): Promise<void> {
    this.injected += 1;
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const socket of this.sockets) socket.destroy();
    await closed;
  }

  /** Listens again on the same port. */
  async acceptConnections(): Promise<void> {
    this.server = this.createServer();
    await this.listen(this.port);
  }

  /** Stops the proxy, resetting open connections. */
  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    if (this.server.listening) await new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.agent.destroy();
  }

  private createServer(): http.Server {
    const server = http.createServer((request, response) => {
      void this.handle(request, response).catch(() => request.socket.destroy());
    });
    server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    return server;
  }

  private async listen(port: number): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, '127.0.0.1', () => resolve());
    });
    this.port = (this.server.address() as AddressInfo).port;
  }

  private async handle(request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const payload = Buffer.concat(chunks);
    const proxied = describeRequest(request, payload);
    this.seen[proxied.operation] = (this.seen[proxied.operation] ?? 0) + 1;
    const state = this.rules.find(
      (candidate) =>
        !candidate.removed && candidate.hits < (candidate.rule.times ?? 1) && candidate.rule.match(proxied),
    );
    const fault = state?.rule.fault;
    if (state) {
      state.hits += 1;
      this.injected += 1;
    }
    if (fault?.kind === 'reset_request') {
      request.socket.destroy();
      return;
    }
    if (state && fault?.kind === 'hold') {
      state.pending += 1;
      await fault.release.catch(() => undefined);
      state.pending -= 1;
    }
    if (fault?.kind === 'delay') await new Promise((resolve) => setTimeout(resolve, fault.ms));
    while (this.halted) await this.halted.gate;
    // Counted from here (no await before forward), so halt() sees every request the engine may be working on.
    this.forwarding += 1;
    let answer: ForwardedAnswer;
    try {
      answer = await forwardRequest(this.upstream, this.agent, request, payload);
    } finally {
      this.forwarding -= 1;
    }
    if (state) state.forwarded += 1;
    if (fault?.kind === 'drop_response' || this.dropsAnswers()) {
      request.socket.destroy();
      return;
    }
    response.writeHead(answer.status, answer.headers);
    response.end(answer.body);
  }
}

/** The operation name from `X-Amz-Target: DynamoDB_20120810.UpdateItem`, and the body parsed when it is JSON. */
function describeRequest(request: http.IncomingMessage, payload: Buffer): ProxiedRequest {
  const target = String(request.headers['x-amz-target'] ?? '');
  const operation = target.includes('.') ? (target.split('.').pop() ?? target) : target || 'unknown';
  const text = payload.toString('utf8');
  let body: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed))
      body = parsed as Record<string, unknown>;
  } catch {
    body = {};
  }
  return { operation, body, text };
}

/** Matches requests of one operation on one table whose raw body contains every given fragment. */
function requestOn(operation: string, tableName: string, ...fragments: string[]): (request: ProxiedRequest) => boolean {
  return (request) =>
    request.operation === operation &&
    request.body.TableName === tableName &&
    fragments.every((fragment) => request.text.includes(fragment));
}

export { type Fault, FaultProxy, type FaultRule, type InstalledRule, type ProxiedRequest, requestOn };
