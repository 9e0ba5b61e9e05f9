import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { forwardRequest } from '../../../../infra/testing/http-forward.js';
import type { JobIdentity } from '../../../../lib/identity.js';
import type { WorkItem } from '../../../../lib/store/work-items/work-item.js';
import { emptyReplayTally, type History, type ObservedRow, type ReplayTally, replayHistories } from './history.js';
import { loadModelRelation, type ModelRelation, type ModelStep } from './relation.js';

type TargetClass = ModelStep['cls'];

/** The model events a holder's fenced write may be (the row before and after tell which one it was). */
const HOLDER_EVENTS = ['renew', 'step', 'successors-step', 'complete', 'retry', 'fail', 'park'] as const;

/** What a write to a work row was, read from the request itself: the events it may be and a holder's fence. */
interface WriteKind {
  events: readonly string[];
  holderFence?: number;
}

/** A write request's expression with its placeholders replaced by the names and values they stand for. */
function resolvedExpression(body: Record<string, unknown>, expression: unknown): string {
  if (typeof expression !== 'string') return '';
  const names = (body.ExpressionAttributeNames ?? {}) as Record<string, string>;
  const values = unmarshall((body.ExpressionAttributeValues ?? {}) as Record<string, AttributeValue>);
  return expression
    .replace(/#[A-Za-z0-9_]+/g, (name) => names[name] ?? name)
    .replace(/:[A-Za-z0-9_]+/g, (value) => (value in values ? JSON.stringify(values[value]) : value));
}

/** The audit entry an operator's write appends to the row, if any (operator-requests.ts: `audit = list_append`). */
function appendedAudit(body: Record<string, unknown>): { action?: string; statement?: string } | undefined {
  const update = resolvedExpression(body, body.UpdateExpression);
  const match = /audit = list_append\(if_not_exists\(audit, \[\]\), (\[.*?\])\)/.exec(update);
  if (!match?.[1]) return undefined;
  const entries = JSON.parse(match[1]) as Array<{ action?: string; statement?: string }>;
  return entries.at(-1);
}

/** The model event of an operator's audited action. */
function operatorEvent(audit: { action?: string; statement?: string }): string {
  const action = audit.action ?? '';
  if (['retry', 'resolve_queued', 'raise_fence_requeue'].includes(action))
    return audit.statement ? 'statement' : 'operator-retry';
  if (action.startsWith('resolve_')) return 'resolve';
  if (action === 'raise_fence') return 'raise';
  return action;
}

/**
 * Which write a request to a work row is, from its own text: a create (PutItem), a claim (the claim's attempts
 * guard), a holder's write (buildFencedUpdate's condition, `fence = mine AND state = claimed`, first), an operator's
 * action (its audit entry), else the sweeper's (a sweep or an approval's expiry).
 */
function writeKind(operation: string, body: Record<string, unknown>): WriteKind {
  if (operation === 'PutItem') return { events: ['claim'] };
  const condition = resolvedExpression(body, body.ConditionExpression);
  if (condition.includes('attempts < maxAttempts')) return { events: ['claim'] };
  const holder = /^fence = (\d+) AND state = "claimed"/.exec(condition);
  if (holder) return { events: HOLDER_EVENTS, holderFence: Number(holder[1]) };
  if (condition.includes('payloadHash = ')) return { events: ['approve'] };
  const audit = appendedAudit(body);
  if (audit) return { events: [operatorEvent(audit)] };
  return { events: ['sweep', 'expire'] };
}

/** The fields of a work row the replay reads. */
function observedRow(item: WorkItem): ObservedRow {
  const { state, fence, attempts, maxAttempts, effectMayHaveHappened, leaseExpiresAt } = item;
  return { state, fence, attempts, maxAttempts, effectMayHaveHappened, leaseExpiresAt };
}

/**
 * An HTTP proxy in front of the DynamoDB engine that records the history of every work row of one jobs table as
 * the engine committed it, whoever wrote it (worker processes, the sweeper, the admin): each write to the table is
 * held in one queue, the row is read (consistently) before and after it, and a write that changed the row is a step,
 * with the events its request shows it may be. So the histories of runs whose workers live in other processes, or
 * are killed and paused, are replayed through the model's relation like the in-process ones. Every writer of the
 * table must go through the proxy: a row found changed since the last write the proxy saw is counted in `unrecorded`
 * (a step is missing), as is a transaction on the table (not on dynalite); the callers require it to stay empty.
 */
class RecordingProxy {
  /** Writes to the table that could not be recorded (by kind): counted, never passed as checked. */
  readonly unrecorded: Record<string, number> = {};
  private readonly histories = new Map<string, History>();
  private readonly sockets = new Set<Socket>();
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  private readonly server: http.Server;
  private queue: Promise<unknown> = Promise.resolve();
  private port = 0;
  private relation: ModelRelation | undefined;

  private constructor(
    private readonly upstream: URL,
    private readonly reader: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly classOf: (jobType: string) => TargetClass | undefined,
  ) {
    this.server = http.createServer((request, response) => {
      void this.handle(request, response).catch(() => request.socket.destroy());
    });
    this.server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
  }

  /**
   * Starts a proxy for `upstream` recording the work rows of `tableName`; `reader` reads the engine directly;
   * `classOf` gives a job type's target class (for a row that has not recorded one).
   */
  static async start(
    upstream: string,
    reader: DynamoDBDocumentClient,
    tableName: string,
    classOf: (jobType: string) => TargetClass | undefined,
  ): Promise<RecordingProxy> {
    const proxy = new RecordingProxy(new URL(upstream), reader, tableName, classOf);
    await new Promise<void>((resolve, reject) => {
      proxy.server.once('error', reject);
      proxy.server.listen(0, '127.0.0.1', () => resolve());
    });
    proxy.port = (proxy.server.address() as AddressInfo).port;
    return proxy;
  }

  /** The endpoint every writer of the table must use. */
  get endpoint(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** The histories recorded so far, one per work row. */
  all(): History[] {
    return [...this.histories.values()];
  }

  /** The recorded histories of these jobs' rows replayed through the model's step relation (model/transitions.json). */
  replay(identities: readonly JobIdentity[]): ReplayTally {
    this.relation ??= loadModelRelation();
    const jobs = new Set(identities.map((identity) => `${identity.tenantId}/${identity.operationId}`));
    const histories = this.all().filter((history) => jobs.has(history.job));
    return replayHistories(this.relation, histories, emptyReplayTally());
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    if (this.server.listening) await new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.agent.destroy();
  }

  private async handle(request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const payload = Buffer.concat(chunks);
    const target = String(request.headers['x-amz-target'] ?? '');
    const operation = target.split('.').pop() ?? '';
    const body = parseBody(payload);
    const forward = () => forwardRequest(this.upstream, this.agent, request, payload);
    let answer: Awaited<ReturnType<typeof forward>>;
    if (operation === 'TransactWriteItems' && payload.toString('utf8').includes(`"${this.tableName}"`)) {
      this.unrecorded.transaction = (this.unrecorded.transaction ?? 0) + 1;
      answer = await forward();
    } else if (['PutItem', 'UpdateItem', 'DeleteItem'].includes(operation) && body.TableName === this.tableName) {
      answer = await this.serialised(() => this.recorded(operation, body, forward));
    } else {
      answer = await forward();
    }
    response.writeHead(answer.status, answer.headers);
    response.end(answer.body);
  }

  /** Runs `task` after every write queued before it (one write to the table at a time). */
  private serialised<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(task, task);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Forwards one write between two reads of its row and records the step when the row changed. */
  private async recorded<T>(operation: string, body: Record<string, unknown>, forward: () => Promise<T>): Promise<T> {
    const key = operation === 'PutItem' ? keyOf(body.Item) : keyOf(body.Key);
    const before = await this.read(key);
    const answer = await forward();
    const after = await this.read(key);
    const row = after ?? before;
    if (!after || row?.kind !== 'work') return answer;
    const job = `${row.tenantId}/${row.operationId}`;
    const cls = (row.targetClass as TargetClass | undefined) ?? this.classOf(row.jobType);
    if (!cls) {
      this.unrecorded['job type of no known class'] = (this.unrecorded['job type of no known class'] ?? 0) + 1;
      return answer;
    }
    const history = this.histories.get(job) ?? { job, cls, steps: [] };
    this.histories.set(job, history);
    const last = history.steps.at(-1)?.after;
    if (last && before && JSON.stringify(last) !== JSON.stringify(observedRow(before))) {
      // the row changed since the last write the proxy saw: a write went around it, and a step is missing
      this.unrecorded['row changed between recorded writes'] =
        (this.unrecorded['row changed between recorded writes'] ?? 0) + 1;
    }
    const kind = writeKind(operation, body);
    history.steps.push({
      events: kind.events,
      ...(kind.holderFence === undefined ? {} : { holderFence: kind.holderFence }),
      before: before ? observedRow(before) : undefined,
      after: observedRow(after),
    });
    return answer;
  }

  private async read(key: Record<string, unknown>): Promise<WorkItem | undefined> {
    const output = await this.reader.send(
      new GetCommand({ TableName: this.tableName, Key: key, ConsistentRead: true }),
    );
    return output.Item as WorkItem | undefined;
  }
}

function parseBody(payload: Buffer): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(payload.toString('utf8'));
    return parsed !== null && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** The table key (pk, sk) of a marshalled item or key. */
function keyOf(value: unknown): Record<string, unknown> {
  const plain = unmarshall((value ?? {}) as Record<string, AttributeValue>);
  return { pk: plain.pk, sk: plain.sk };
}

export { RecordingProxy };
