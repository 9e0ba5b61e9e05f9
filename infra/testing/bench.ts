import { randomUUID } from 'node:crypto';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient } from '../../lib/aws-clients.js';
import { ManualClock } from '../../lib/clock.js';
import { payloadHash } from '../../lib/hashing.js';
import { type JobIdentity, parseIdentity } from '../../lib/identity.js';
import { type JobDefinition, JobRegistry } from '../../lib/job-definition.js';
import { serializeEnvelope } from '../../lib/messaging/envelope.js';
import { PayloadStore } from '../../lib/store/payloads.js';
import type { WorkItem } from '../../lib/store/work-item.js';
import { WorkItemStore } from '../../lib/store/work-item-store.js';
import { sweep } from '../../lib/sweeper/sweeper.js';
import { countingTelemetry } from '../../lib/telemetry.js';
import { type MessageResult, type QueueMessage, WorkerRuntime } from '../../lib/worker/worker-runtime.js';
import type { ConformanceEngine, ConformanceTables } from './conformance-engine.js';
import { type Gate, within } from './gate.js';
import { instrumentProvider, type ProviderEvent, type ProviderFaults } from './provider-probe.js';
import { TargetState } from './target-state.js';
import { noFaults, observedWorkerClient, type RequestRecorder, type WorkerFaults } from './worker-client.js';

/** What delivering one message to a worker came to: acknowledged with a result, or left for redelivery. */
type Delivery = { acked: true; result: MessageResult } | { acked: false; error: string };

/** A fence rejection or other error a job's run or reconcile threw, as the harness saw it. */
interface JobError {
  readonly worker: string;
  readonly scenario: string;
  readonly name: string;
  readonly code: string | undefined;
  readonly context: Record<string, unknown>;
}

/** One simulated worker process: its runtime, its armed faults and its telemetry. */
interface BenchWorker {
  readonly name: string;
  readonly faults: WorkerFaults;
  readonly providerFaults: ProviderFaults;
  deliver(message: QueueMessage): Promise<Delivery>;
}

/** Prepares the job's own records for one tenant (e.g. stock to reserve), through the harness's client. */
type PrepareTenant = (context: { client: DynamoDBDocumentClient; tenantId: string; payload: unknown }) => Promise<void>;

/**
 * Everything one job type's conformance run shares: fresh tables, one manual clock, the record of every
 * request the job made and every provider call, and simulated workers that each own a DynamoDB client.
 */
class ConformanceBench {
  readonly clock = new ManualClock(Date.UTC(2026, 0, 1));
  readonly recorder: RequestRecorder = { requests: [], scenario: 'setup' };
  readonly providerEvents: ProviderEvent[] = [];
  readonly jobErrors: JobError[] = [];
  readonly telemetry = countingTelemetry();
  /** Every tenant id the scenarios used (raw identifiers must not reach logs). */
  readonly tenants: string[] = [];
  readonly store: WorkItemStore;
  readonly targets: TargetState;
  private readonly payloads: PayloadStore;
  private readonly clients: DynamoDBDocumentClient[] = [];
  private readonly providerClient: DynamoDBDocumentClient;

  constructor(
    private readonly engine: ConformanceEngine,
    readonly tables: ConformanceTables,
    readonly client: DynamoDBDocumentClient,
    private readonly sqs: SQSClient,
    readonly job: JobDefinition<unknown>,
    private readonly prepare: PrepareTenant | undefined,
  ) {
    this.store = new WorkItemStore({ client, tableName: tables.jobsTable, clock: this.clock });
    this.payloads = new PayloadStore(client, tables.payloadsTable, this.clock);
    this.targets = new TargetState(client, this.recorder.requests);
    // The provider's own storage (a simulated gateway) is the external system, not the job's writes.
    this.providerClient = createDocumentClient({ endpoint: engine.endpoint });
    this.clients.push(this.providerClient);
  }

  /** Names the running scenario (requests, calls and errors are attributed to it). */
  begin(scenario: string): void {
    this.recorder.scenario = scenario;
  }

  /** A tenant no other scenario uses, with the job's records prepared for `payload`. */
  async tenant(label: string, payload: unknown): Promise<string> {
    const tenantId = `lfc-${label}-${randomUUID().slice(0, 8)}`;
    this.tenants.push(tenantId);
    await this.prepare?.({ client: this.client, tenantId, payload });
    return tenantId;
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

  /** A worker process; `pause` holds its first run/reconcile right after the claim until released. */
  worker(name: string, options: { pause?: Gate } = {}): BenchWorker {
    const faults = noFaults();
    const providerFaults: ProviderFaults = { crashAfterEffect: false, timeoutAfterEffect: false };
    const client = observedWorkerClient({
      endpoint: this.engine.endpoint,
      worker: name,
      workTable: this.tables.jobsTable,
      recorder: this.recorder,
      faults,
    });
    this.clients.push(client);
    const store = new WorkItemStore({ client, tableName: this.tables.jobsTable, clock: this.clock });
    const definition = this.observedDefinition(name, faults, providerFaults, options.pause);
    const runtime = new WorkerRuntime({
      store,
      registry: new JobRegistry([definition]),
      payloads: new PayloadStore(client, this.tables.payloadsTable, this.clock),
      telemetry: this.telemetry,
      workerId: `${name}-${randomUUID().slice(0, 6)}`,
      heartbeatIntervalMs: 0,
    });
    const deliver = async (message: QueueMessage): Promise<Delivery> => {
      try {
        return { acked: true, result: await within(runtime.handleMessage(message), `worker ${name}'s delivery`) };
      } catch (error) {
        return { acked: false, error: `${(error as Error).name}: ${(error as Error).message}` };
      }
    };
    return { name, faults, providerFaults, deliver };
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

  /** Provider effect calls made in a scenario (all workers). */
  effectCalls(scenario: string): number {
    return this.providerEvents.filter((event) => event.scenario === scenario && event.kind === 'effect').length;
  }

  async close(): Promise<void> {
    for (const client of this.clients) client.destroy();
  }

  /** The job as one worker runs it: paused when asked, its errors and reconciles recorded, its provider probed. */
  private observedDefinition(
    worker: string,
    faults: WorkerFaults,
    providerFaults: ProviderFaults,
    pause: Gate | undefined,
  ): JobDefinition<unknown> {
    const job = this.job;
    const scenario = () => this.recorder.scenario;
    const record = (error: unknown) => {
      const typed = error as { name?: string; code?: string; context?: Record<string, unknown> };
      this.jobErrors.push({
        worker,
        scenario: scenario(),
        name: String(typed?.name ?? 'Error'),
        code: typed?.code,
        context: typed?.context ?? {},
      });
    };
    const guarded = async <T>(work: () => Promise<T>): Promise<T> => {
      await pause?.hold();
      try {
        return await work();
      } catch (error) {
        record(error);
        throw error;
      }
    };
    const provider = job.provider;
    return {
      ...job,
      run: (context) => guarded(() => job.run(context)),
      ...(job.reconcile
        ? {
            reconcile: (context) =>
              guarded(() => {
                this.providerEvents.push({ worker, scenario: scenario(), kind: 'reconcile', method: 'reconcile' });
                return (job.reconcile as NonNullable<typeof job.reconcile>)(context);
              }),
          }
        : {}),
      ...(provider
        ? {
            provider: {
              effects: provider.effects,
              create: () =>
                instrumentProvider(provider.create({ client: this.providerClient }), provider.effects, {
                  worker,
                  events: this.providerEvents,
                  scenario,
                  faults: providerFaults,
                  workerFaults: faults,
                }),
            },
          }
        : {}),
    };
  }
}

export { type BenchWorker, ConformanceBench, type Delivery, type JobError, type PrepareTenant };
