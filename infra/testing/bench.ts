import { randomUUID } from 'node:crypto';
import { DeleteMessageBatchCommand, ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { AdminDeps } from '../../lib/admin/deps.js';
import { ManualClock } from '../../lib/clock.js';
import { createDocumentClient } from '../../lib/document-client.js';
import { FenceRejectedError, isLeasefenceError } from '../../lib/errors.js';
import { payloadHash } from '../../lib/hashing.js';
import { type JobIdentity, parseIdentity } from '../../lib/identity.js';
import { type JobDefinition, JobRegistry } from '../../lib/job-definition.js';
import { serializeEnvelope } from '../../lib/messaging/envelope.js';
import type { ProducerDependencies } from '../../lib/messaging/producer.js';
import type { WorkItem } from '../../lib/store/index.js';
import { OperatorStore, PayloadStore } from '../../lib/store/index.js';
import { sweep } from '../../lib/sweeper/sweeper.js';
import { countingTelemetry } from '../../lib/telemetry.js';
import { type MessageResult, type QueueMessage, WorkerRuntime } from '../../lib/worker/worker-runtime.js';
import type { ConformanceEngine, ConformanceTables } from './conformance-engine.js';
import { type Gate, within } from './gate.js';
import {
  type EnqueueCall,
  type JobObserver,
  observedJob,
  type ReconcileAnswer,
  type RunCall,
  type WorkerState,
} from './observed-job.js';
import type { WireObserver, WireRequest } from './observing-proxy.js';
import { PROCESS_LABEL } from './process-endpoint.js';
import { countEffects, operationKey, type ProviderEvent, type ProviderFaults } from './provider-probe.js';
import { classifyRequest, type ObservedRequest, type RequestSource, tablesOf } from './request-log.js';
import { successorStandIns } from './successor-stand-ins.js';
import { TargetState } from './target-state.js';
import { faultDecision, noFaults, type WorkerFaults } from './worker-faults.js';

/** What delivering one message to a worker came to: acknowledged with a result, or left for redelivery. */
type Delivery = { acked: true; result: MessageResult } | { acked: false; error: string };

/** A fence rejection or other error a job's run or reconcile threw, as the harness saw it. */
interface JobError {
  readonly worker: string;
  readonly scenario: string;
  readonly sample: number;
  readonly name: string;
  readonly code: string | undefined;
  /** For a fence rejection (recognised by brand and code): why, and which table refused. */
  readonly rejection?: { readonly reason: string | undefined; readonly tableName: string | undefined };
}

/** One simulated worker process: its armed faults, and how to deliver a message to it. */
interface BenchWorker {
  readonly name: string;
  readonly faults: WorkerFaults;
  readonly providerFaults: ProviderFaults;
  deliver(message: QueueMessage): Promise<Delivery>;
}

/** Prepares the job's own records for one tenant (e.g. stock to reserve), through the harness's client. */
/**
 * Seeds a fresh tenant's records before a scenario sends its job. `tables` maps each table the module declares to
 * its name where the job runs (the declared name in-process; a deployed stack's own name through `check --stack`):
 * a seed written under the declared name to a stack that names the table otherwise is never read by its worker.
 */
type PrepareTenant = (context: {
  client: DynamoDBDocumentClient;
  tenantId: string;
  payload: unknown;
  tables: Readonly<Record<string, string>>;
}) => Promise<void>;

/** The running scenario and sample, which every request, call and error is attributed to. */
interface Run {
  scenario: string;
  sample: number;
}

/**
 * Everything one job type's conformance run shares: fresh tables, one manual clock, every DynamoDB request any
 * client of the process sent to the engine (observed at the engine boundary, attributed to a worker), every
 * provider call and reconcile answer, and simulated workers that each own their clients.
 */
/**
 * The job as a worker runs it: with its approval gate only for `gated` workers (scenarios-approvals.ts). Every other
 * scenario starts where an approved job starts (queued, no lease), so the fence scenarios judge the same code.
 */
function ungatedUnless(gated: boolean | undefined, job: JobDefinition<unknown>): JobDefinition<unknown> {
  if (gated === true || job.approval === undefined) return job;
  const { approval: _approval, ...ungated } = job;
  return ungated;
}

class ConformanceBench implements WireObserver, JobObserver {
  readonly clock = new ManualClock(Date.UTC(2026, 0, 1));
  readonly requests: ObservedRequest[] = [];
  readonly providerEvents: ProviderEvent[] = [];
  readonly reconciles: ReconcileAnswer[] = [];
  readonly runCalls: RunCall[] = [];
  readonly enqueues: EnqueueCall[] = [];
  readonly jobErrors: JobError[] = [];
  readonly telemetry = countingTelemetry();
  /** Every tenant id the scenarios used (raw identifiers must not reach logs). */
  readonly tenants: string[] = [];
  readonly store: OperatorStore;
  readonly targets: TargetState;
  private readonly payloads: PayloadStore;
  private readonly clients: DynamoDBDocumentClient[] = [];
  private readonly workers = new Map<string, WorkerState>();
  private readonly touched = new Set<string>();
  private readonly run: Run = { scenario: 'setup', sample: 0 };
  private preparing = false;
  /** In-process every declared table keeps its name (what `prepare` is told). */
  private readonly declaredNames: Readonly<Record<string, string>>;

  constructor(
    private readonly engine: ConformanceEngine,
    readonly tables: ConformanceTables,
    readonly client: DynamoDBDocumentClient,
    private readonly sqs: SQSClient,
    readonly job: JobDefinition<unknown>,
    private readonly prepare: PrepareTenant | undefined,
    declaredTables: readonly string[],
    /** The module's other job types: the successor types a worker accepts from ctx.enqueue (never run here). */
    private readonly successorJobs: ReadonlyArray<JobDefinition<unknown>> = [],
  ) {
    this.store = new OperatorStore({ client, tableName: tables.jobsTable, clock: this.clock });
    this.payloads = new PayloadStore(client, tables.payloadsTable, this.clock);
    this.targets = new TargetState(client, () => [...declaredTables, ...this.touched], this.libraryTables());
    this.declaredNames = Object.fromEntries(declaredTables.map((name) => [name, name]));
    engine.proxy.observe(this);
  }

  /** The running scenario and sample. */
  running(): Readonly<Run> {
    return { ...this.run };
  }

  /** Names the running scenario and sample (requests, calls and errors are attributed to it). */
  begin(scenario: string, sample: number): void {
    this.run.scenario = scenario;
    this.run.sample = sample;
  }

  /** The requests observed in the running scenario and sample. */
  requestsOfRun(): ObservedRequest[] {
    return this.requests.filter((request) => this.inRun(request));
  }

  /** The provider events of the running scenario and sample. */
  eventsOfRun(): ProviderEvent[] {
    return this.providerEvents.filter((event) => this.inRun(event));
  }

  /** The errors the job threw in the running scenario and sample. */
  errorsOfRun(): JobError[] {
    return this.jobErrors.filter((error) => this.inRun(error));
  }

  /** The provider's effects in the running scenario (class C: distinct idempotency keys; D: calls). */
  effects(): number {
    return countEffects(this.eventsOfRun(), this.job.target);
  }

  /** The attempts at which run() was called for an identity. */
  runAttempts(identity: JobIdentity): number[] {
    const operation = operationKey(identity);
    return this.runCalls.filter((call) => call.operation === operation).map((call) => call.attempt);
  }

  /** A tenant no other scenario uses, with the job's records prepared for `payload`. */
  async tenant(label: string, payload: unknown): Promise<string> {
    const tenantId = `lfc-${label}-${randomUUID().slice(0, 8)}`;
    await this.prepareTenant(tenantId, payload);
    return tenantId;
  }

  /** Prepares the job's records for a tenant someone else named (a schedule's), and keeps it out of logs. */
  async prepareTenant(tenantId: string, payload: unknown): Promise<void> {
    this.tenants.push(tenantId);
    this.preparing = true;
    try {
      await this.prepare?.({ client: this.client, tenantId, payload, tables: this.declaredNames });
    } finally {
      this.preparing = false;
    }
  }

  /** A first-send message; its body is stored like a producer would (unless `store` is false). */
  async message(identity: JobIdentity, payload: unknown, options: { store?: boolean } = {}): Promise<QueueMessage> {
    const hash = payloadHash(payload);
    if (options.store !== false) await this.payloads.put(identity, payload, hash);
    const body = serializeEnvelope({
      v: 1,
      kind: 'job',
      ...identity,
      jobType: this.job.type,
      payloadHash: hash,
      payload: { inline: true },
    });
    return { messageId: randomUUID(), body };
  }

  /**
   * A worker process with its own clients, each pointed at its own listener of the engine boundary (so every
   * request is attributed to it); `pause` holds its first run/reconcile right after the claim until released.
   */
  async worker(name: string, options: { pause?: Gate; gated?: boolean } = {}): Promise<BenchWorker> {
    const state: WorkerState = {
      faults: noFaults(),
      providerFaults: { crashAfterEffect: false, timeoutAfterEffect: false, failBeforeEffect: false },
      identity: undefined,
      inFlight: 0,
      paused: false,
    };
    this.workers.set(name, state);
    const client = this.track(createDocumentClient({ endpoint: await this.engine.proxy.listen(name) }));
    const providerClient = this.track(
      createDocumentClient({ endpoint: await this.engine.proxy.listen(`${name}:provider`) }),
    );
    const runtime = new WorkerRuntime({
      store: new OperatorStore({ client, tableName: this.tables.jobsTable, clock: this.clock }),
      client,
      registry: new JobRegistry([
        ungatedUnless(options.gated, observedJob(this, { worker: name, state, providerClient, pause: options.pause })),
        ...successorStandIns(this.job, this.successorJobs),
      ]),
      payloads: new PayloadStore(client, this.tables.payloadsTable, this.clock),
      telemetry: this.telemetry,
      workerId: `${name}-${randomUUID().slice(0, 6)}`,
      heartbeatIntervalMs: 0,
    });
    const deliver = async (message: QueueMessage): Promise<Delivery> => {
      state.identity = identityOf(message);
      state.inFlight += 1;
      try {
        return { acked: true, result: await within(runtime.handleMessage(message), `worker ${name}'s delivery`) };
      } catch (error) {
        return { acked: false, error: `${(error as Error).name}: ${(error as Error).message}` };
      } finally {
        state.inFlight -= 1;
      }
    };
    return { name, faults: state.faults, providerFaults: state.providerFaults, deliver };
  }

  /** The admin operations on this bench's tables (approve, reject, cancel), as an operator would call them. */
  admin(): AdminDeps {
    return {
      store: this.store,
      sqs: this.sqs,
      queueUrl: this.tables.queueUrl,
      payloadsTable: this.tables.payloadsTable,
    };
  }

  /** What the library's producer needs on this bench's tables (rows first), as the schedule tick handler builds it. */
  producer(): ProducerDependencies {
    return {
      sqs: this.sqs,
      queueUrl: this.tables.queueUrl,
      payloads: this.payloads,
      // As the tick handler builds it: no job definitions, so each occurrence takes its schedule's budget.
      delayed: { client: this.client, jobsTable: this.tables.jobsTable, jobs: [], clock: this.clock },
    };
  }

  /**
   * Takes every message now on the bench's queue (nobody else polls it: the sweeper's wake-ups and the producer's
   * land there) and returns those naming an identity `wanted` accepts, as a worker would receive them.
   */
  async takeMessages(wanted: (identity: JobIdentity) => boolean): Promise<QueueMessage[]> {
    const taken: QueueMessage[] = [];
    for (;;) {
      const output = await this.sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: this.tables.queueUrl,
          MaxNumberOfMessages: 10,
          WaitTimeSeconds: 0,
          VisibilityTimeout: 300,
        }),
      );
      const messages = output.Messages ?? [];
      if (messages.length === 0) return taken;
      for (const message of messages) {
        const queued = { messageId: message.MessageId ?? randomUUID(), body: message.Body ?? '' };
        const identity = identityOf(queued);
        if (identity && wanted(identity)) taken.push(queued);
      }
      await this.sqs.send(
        new DeleteMessageBatchCommand({
          QueueUrl: this.tables.queueUrl,
          Entries: messages.map((message, index) => ({
            Id: String(index),
            ReceiptHandle: message.ReceiptHandle ?? '',
          })),
        }),
      );
    }
  }

  /** The work item as stored now. */
  row(identity: JobIdentity): Promise<WorkItem | undefined> {
    return this.store.get(parseIdentity(identity), { consistent: true });
  }

  /** Moves the shared clock past the job's lease (and any retry delay). */
  expireLease(): void {
    this.clock.advance(this.job.leaseMs + this.job.retry.maxDelayMs + 1);
  }

  /** One real sweeper pass (expired and exhausted claims ▶ unknown; wake-ups go to a queue nobody polls). */
  async sweep(): Promise<void> {
    await sweep({ store: this.store, sqs: this.sqs, queueUrl: this.tables.queueUrl, dueGraceMs: 0 });
  }

  /** Every request that reaches the engine boundary: attributed, classified, faulted, and its outcome recorded. */
  decide(wire: WireRequest): ReturnType<WireObserver['decide']> {
    if (wire.label === PROCESS_LABEL && this.preparing) return { decision: { kind: 'forward' }, settle: () => {} };
    const source: RequestSource =
      wire.label === PROCESS_LABEL ? 'process' : wire.label.endsWith(':provider') ? 'provider' : 'runtime';
    const worker = source === 'process' ? this.runningWorker() : (wire.label.split(':')[0] ?? wire.label);
    const state = this.workers.get(worker);
    const decision = state
      ? faultDecision(state.faults, worker, wire.operation, wire.body, this.tables.jobsTable)
      : ({ kind: 'forward' } as const);
    // A class C/D provider's own storage is the external system: its writes are the effect, counted at the provider.
    const external = source === 'provider' && (this.job.target === 'C' || this.job.target === 'D');
    const classified = external
      ? { writes: [], workTable: false }
      : classifyRequest(wire.operation, wire.body, this.tables.jobsTable, [this.tables.payloadsTable]);
    const tables = tablesOf(wire.operation, wire.body);
    for (const table of tables) this.touched.add(table);
    const entry: ObservedRequest = {
      seq: this.requests.length,
      worker,
      source,
      scenario: this.run.scenario,
      sample: this.run.sample,
      operation: wire.operation,
      tables,
      writes: classified.writes,
      workTable: classified.workTable,
      outcome: undefined,
    };
    this.requests.push(entry);
    return {
      decision,
      settle: (outcome) => {
        entry.outcome =
          outcome.status === 200 ? { landed: true } : { landed: false, error: outcome.errorName ?? 'Error' };
      },
    };
  }

  async close(): Promise<void> {
    this.engine.proxy.observe(undefined);
    for (const client of this.clients) client.destroy();
  }

  private track(client: DynamoDBDocumentClient): DynamoDBDocumentClient {
    this.clients.push(client);
    return client;
  }

  private inRun(entry: { scenario: string; sample: number }): boolean {
    return entry.scenario === this.run.scenario && entry.sample === this.run.sample;
  }

  private libraryTables(): string[] {
    return [this.tables.jobsTable, this.tables.payloadsTable];
  }

  /** The one worker whose job is running now (not paused); `unattributed` when none or several are. */
  private runningWorker(): string {
    const running = [...this.workers].filter(([, state]) => state.inFlight > 0 && !state.paused);
    return running.length === 1 ? (running[0]?.[0] ?? 'unattributed') : 'unattributed';
  }

  /** Effects the provider holds for an operation now (calls that returned; class C by distinct key). */
  held(operation: string): number {
    const took = this.providerEvents.filter((event) => event.operation === operation && event.took);
    return countEffects(took, this.job.target);
  }

  /** Records an error the job's run or reconcile threw, attributed to the running scenario. */
  recordError(worker: string, error: unknown): void {
    const typed = error as { name?: string; code?: string };
    this.jobErrors.push({
      worker,
      scenario: this.run.scenario,
      sample: this.run.sample,
      name: String(typed?.name ?? 'Error'),
      code: typed?.code,
      ...(isLeasefenceError(error, FenceRejectedError)
        ? { rejection: { reason: error.reason, tableName: error.tableName } }
        : {}),
    });
  }
}

/** The identity a message names (the harness built it, so it parses). */
function identityOf(message: QueueMessage): JobIdentity | undefined {
  try {
    const body = JSON.parse(message.body) as { tenantId?: unknown; operationId?: unknown };
    return typeof body.tenantId === 'string' && typeof body.operationId === 'string'
      ? { tenantId: body.tenantId, operationId: body.operationId }
      : undefined;
  } catch {
    return undefined;
  }
}

export { type BenchWorker, ConformanceBench, type Delivery, type JobError, type PrepareTenant, type ReconcileAnswer };
