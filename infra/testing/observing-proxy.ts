import http from 'node:http';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { type ForwardedAnswer, forwardRequest } from './http-forward.js';

/** One DynamoDB request as it reached the engine boundary: which listener took it, its operation and JSON body. */
interface WireRequest {
  /** The listener's label (a worker's runtime client, its provider's client, or `process` for any other client). */
  readonly label: string;
  /** From `X-Amz-Target: DynamoDB_20120810.PutItem`: `PutItem`. */
  readonly operation: string;
  readonly body: Record<string, unknown>;
}

/**
 * What happens to a request: forwarded to the engine (optionally losing the response after the engine answered,
 * an ambiguous outcome the SDK retries), or refused without reaching it (answered with a DynamoDB-style error
 * named `errorName`, which the SDK does not retry).
 */
type WireDecision =
  | { readonly kind: 'forward'; readonly dropResponse?: boolean }
  | { readonly kind: 'refuse'; readonly errorName: string; readonly message: string };

/** How a request ended: the engine's status and error name (`ConditionalCheckFailedException`), or refused. */
interface WireOutcome {
  /** The engine's HTTP status; 0 when it was refused or the engine could not be reached. */
  readonly status: number;
  readonly errorName: string | undefined;
}

/** Decides each request's fate and hears how it ended. */
interface WireObserver {
  decide(request: WireRequest): { decision: WireDecision; settle(outcome: WireOutcome): void };
}

/** With no observer attached: forward, record nothing. */
const PASS_THROUGH: ReturnType<WireObserver['decide']> = { decision: { kind: 'forward' }, settle: () => {} };

/**
 * An HTTP proxy on 127.0.0.1 in front of a DynamoDB engine: every request any client sends to one of its
 * listeners is decoded (X-Amz-Target + JSON body), shown to the observer, and forwarded unchanged (only the
 * Host header is rewritten), so the engine boundary, not a client's middleware, is where the harness sees the
 * job's requests. Each listener has a label, so requests are attributed to the client that was pointed at it.
 * Engines that check SigV4 signatures (AWS itself) refuse the rewritten Host: local engines only.
 */
class ObservingProxy {
  private readonly upstream: URL;
  private readonly agent: http.Agent;
  private readonly servers = new Map<string, { server: http.Server; endpoint: Promise<string> }>();
  private readonly sockets = new Set<Socket>();
  private observer: WireObserver | undefined;

  constructor(upstreamEndpoint: string) {
    this.upstream = new URL(upstreamEndpoint);
    const Agent = this.upstream.protocol === 'https:' ? https.Agent : http.Agent;
    this.agent = new Agent({ keepAlive: true, maxSockets: 64 });
  }

  /** Attaches (or with undefined detaches) the observer every later request is shown to. */
  observe(observer: WireObserver | undefined): void {
    this.observer = observer;
  }

  /** The endpoint of the listener labelled `label` (started on a free loopback port on first use). */
  listen(label: string): Promise<string> {
    const existing = this.servers.get(label);
    if (existing) return existing.endpoint;
    const server = http.createServer((request, response) => {
      void this.handle(label, request, response).catch(() => request.socket.destroy());
    });
    server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    const endpoint = new Promise<string>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`));
    });
    this.servers.set(label, { server, endpoint });
    return endpoint;
  }

  /** Handles one request that reached any listener (also used by the process-wide front door). */
  async handle(label: string, request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const payload = Buffer.concat(chunks);
    const wire = decodeRequest(label, request, payload);
    const { decision, settle } = this.observer?.decide(wire) ?? PASS_THROUGH;
    if (decision.kind === 'refuse') {
      settle({ status: 0, errorName: decision.errorName });
      answerWithError(response, decision.errorName, decision.message);
      return;
    }
    let answer: ForwardedAnswer;
    try {
      answer = await forwardRequest(this.upstream, this.agent, request, payload);
    } catch (error) {
      settle({ status: 0, errorName: (error as Error).name });
      request.socket.destroy();
      return;
    }
    settle({ status: answer.status, errorName: answer.status === 200 ? undefined : errorNameOf(answer.body) });
    if (decision.dropResponse) {
      request.socket.destroy();
      return;
    }
    response.writeHead(answer.status, answer.headers);
    response.end(answer.body);
  }

  /** Stops every listener, resetting open connections. */
  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await Promise.all(
      [...this.servers.values()].map(
        ({ server }) => new Promise<void>((resolve) => (server.listening ? server.close(() => resolve()) : resolve())),
      ),
    );
    this.servers.clear();
    this.agent.destroy();
  }
}

/** The operation from X-Amz-Target and the body parsed when it is a JSON object (else empty). */
function decodeRequest(label: string, request: http.IncomingMessage, payload: Buffer): WireRequest {
  const target = String(request.headers['x-amz-target'] ?? '');
  const operation = target.includes('.') ? (target.split('.').pop() ?? target) : target || 'unknown';
  let body: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(payload.toString('utf8'));
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed))
      body = parsed as Record<string, unknown>;
  } catch {
    body = {};
  }
  return { label, operation, body };
}

/** `ConditionalCheckFailedException` from `{"__type":"com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException"}`. */
function errorNameOf(body: Buffer): string {
  try {
    const type = (JSON.parse(body.toString('utf8')) as { __type?: unknown }).__type;
    return typeof type === 'string' ? (type.split('#').pop() ?? type) : 'UnknownError';
  } catch {
    return 'UnknownError';
  }
}

/** A DynamoDB-style client error (HTTP 400): the SDK throws an error with this name and does not retry it. */
function answerWithError(response: http.ServerResponse, errorName: string, message: string): void {
  const body = JSON.stringify({ __type: `leasefence.conformance#${errorName}`, message });
  response.writeHead(400, { 'content-type': 'application/x-amz-json-1.0', 'content-length': Buffer.byteLength(body) });
  response.end(body);
}

export { answerWithError, ObservingProxy, type WireDecision, type WireObserver, type WireOutcome, type WireRequest };
