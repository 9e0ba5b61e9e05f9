import { randomUUID } from 'node:crypto';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod/mini';
import { type ApprovalGate, requiresApproval } from '../approval-policy.js';
import { ConfigurationError } from '../errors.js';
import type { Priority } from '../flow-control/priorities.js';
import type { JobIdentity } from '../identity.js';
import { describeIssues } from '../internal/issue-paths.js';
import type { AnyJobDefinition, JobDefinition, JobRegistry } from '../job-definition.js';
import {
  type BoundMessage,
  boundAsReceived,
  JOB_VERSION_UNSUPPORTED,
  parseEnvelope,
  type ReceivedMessage,
} from '../messaging/envelope.js';
import type { RetryWaker } from '../messaging/retry-wake.js';
import { checkSender, type MessageSender, originalSender, type SenderTenants } from '../messaging/sender-tenants.js';
import { MetricName } from '../metric-names.js';
import type { InlinePayloadPolicy } from '../rules.js';
import { WorkState } from '../states.js';
import type { Claim, PayloadStore, WorkItemStore } from '../store/index.js';
import { FLOW_CONTROL_OMITTED, type LeaseRequest, parseLease } from '../store/index.js';
import { silentTelemetry, type Telemetry } from '../telemetry.js';
import type { TraceCarrier } from '../tracing/trace-context.js';
import { type JobTracer, SpanName, traced } from '../tracing/tracer.js';
import { acquireClaim, type RowBound } from './acquire-claim.js';
import { firstMessageGate, missingApproval, openApprovalRecord } from './approval-gate.js';
import { awaitMissingBody, PAYLOAD_PENDING } from './await-payload.js';
import { adoptCarriedBody, storeCarriedBody } from './carried-payload.js';
import type { SlotDecision } from './concurrency-slots.js';
import * as concurrencySlots from './concurrency-slots.js';
import { deferDisabled } from './defer-disabled.js';
import { type ExecutionResult, executeClaimedJob } from './execute-job.js';
import { loadRateGate } from './flow-loader.js';
import type { ProviderObserver } from './job-context.js';
import { KeyedSerializer } from './keyed-serializer.js';
import { type LoadedPayload, loadVerifiedPayload, type PayloadResolver, type PayloadSources } from './load-payload.js';
import type { OverBudget } from './rate-gate.js';
import type { SuccessorWake } from './successors.js';
import { noteUnrunnable } from './unrunnable-refusal.js';

/**
 * The worker's concurrency-slot module, or undefined in a worker bundled without flow control (the construct defines
 * `process.env.LEASEFENCE_FLOW_CONTROL` as `'omitted'` without `flowControl`: esbuild leaves the module out).
 */
function flowControlLoader(): (() => Promise<typeof import('./concurrency-slots.js')>) | undefined {
  // The constant's test is spelled out wherever it decides: esbuild folds it only where it is written.
  return process.env.LEASEFENCE_FLOW_CONTROL === 'omitted' ? undefined : () => Promise.resolve(concurrencySlots);
}

/**
 * The claim's concurrency slots (worker/concurrency-slots.ts), for a job type that declares limits.
 * ConfigurationError in a worker bundled without flow control (which refuses such a type at start).
 */
async function takeSlots(
  { store, retryWaker, bulkRetryWaker }: Pick<WorkerRuntimeOptions, 'store' | 'retryWaker' | 'bulkRetryWaker'>,
  telemetry: Telemetry,
  job: { definition: AnyJobDefinition; claim: Claim; payload: unknown; lane: Priority },
): Promise<SlotDecision> {
  const load = flowControlLoader();
  if (!load) throw new ConfigurationError(FLOW_CONTROL_OMITTED);
  const { definition, claim, payload, lane } = job;
  const deps = {
    store,
    telemetry,
    lane,
    ...(retryWaker ? { retryWaker } : {}),
    ...(bulkRetryWaker ? { bulkRetryWaker } : {}),
  };
  return (await load()).takeSlots(deps, definition, claim, payload);
}

/** A job's lane: bulk when it arrived in the bulk lane or its type declares `flow.priority: 'bulk'`, else urgent. */
function laneOf(definition: AnyJobDefinition, arrivedIn: Priority | undefined): Priority {
  return arrivedIn === 'bulk' || definition.flow?.priority === 'bulk' ? 'bulk' : 'urgent';
}

/** Quarantine reason: a claimed row of a gated job type whose payload needs approval carries none. */
const APPROVAL_MISSING = 'approval_missing';
/** One queue message as the runtime sees it (from an SQS event record or a local poller). */
interface QueueMessage {
  messageId: string;
  body: string;
  receiveCount?: number;
  /** Who sent it, as SQS reports it (SenderId); checked against `senderTenants` when that is configured. */
  sender?: MessageSender;
  /** The sender's trace context (SQS message attributes `traceparent`/`tracestate`), read only when tracing is on. */
  trace?: TraceCarrier;
  /** The lane it arrived in (the bulk queue: `bulk`); its wake-ups go back to the same lane. Default urgent. */
  lane?: Priority;
}

/** Quarantine reason of a message whose sender may not produce for the tenant it names. */
const TENANT_NOT_ALLOWED_FOR_SENDER = 'tenant_not_allowed_for_sender';

/**
 * What happened to a message. Every result means "acknowledge": the work row committed or nothing needed
 * committing. Infrastructure errors are thrown instead, so the message is redelivered.
 */
type MessageResult =
  | { status: 'executed'; identity: JobIdentity; fence: number; result: ExecutionResult }
  | { status: 'skipped'; reason: string; identity: JobIdentity }
  | { status: 'deferred'; reason: DeferReason; identity: JobIdentity }
  | { status: 'quarantined'; reason: string }
  | { status: 'item_quarantined'; reason: string; identity: JobIdentity; fence: number };

/**
 * Why a message was acknowledged with its row left queued: its job type is switched off here, or its provider budget
 * is empty (the row wakes itself after a delay; no attempt was used).
 */
type DeferReason = 'job_type_disabled' | 'rate_limited';

/** Dependencies of the worker runtime. */
interface WorkerRuntimeOptions {
  store: WorkItemStore;
  /** The client of the jobs' own record tables (ctx.client, ctx.records, ctx.transactions); often the store's. */
  client: DynamoDBDocumentClient;
  registry: JobRegistry;
  payloads?: PayloadStore;
  payloadResolver?: PayloadResolver;
  telemetry?: Telemetry;
  /** Stable id of this worker process (lease owner); random by default. */
  workerId?: string;
  /** Milliseconds between lease checks; default a third of each job's lease. */
  heartbeatIntervalMs?: number;
  /** Job types switched off in this deployment: their messages are acknowledged and their rows wait queued. */
  disabledJobTypes?: readonly string[];
  /** Sends each queued retry its own wake-up (see messaging/retry-wake.ts); without it only the sweeper wakes retries. */
  retryWaker?: RetryWaker;
  /**
   * The bulk lane's waker (a bulk queue is configured): wake-ups of a job that arrived in the bulk lane, or whose type
   * declares `flow.priority: 'bulk'`, go there; without it every wake-up goes to `retryWaker`'s queue.
   */
  bulkRetryWaker?: RetryWaker;
  /**
   * Which senders may produce for which tenants (LEASEFENCE_SENDER_TENANTS). When given, a message whose sender may
   * not produce for its tenant is quarantined before anything else, without touching any work row.
   */
  senderTenants?: SenderTenants;
  /** Where successors' wake-ups go once their rows committed; without it the sweeper finds the queued rows. */
  wake?: SuccessorWake;
  /** Payload bodies carried in messages: moved into the payloads table (`accept`, the default) or quarantined. */
  inlinePayloads?: InlinePayloadPolicy;
  /**
   * The tracer when tracing is on (a getter: the handler loads it on its first invocation); absent or undefined: no
   * span, and the per-message cost is this check.
   */
  tracer?: () => JobTracer | undefined;
  /** How an in-process budget wait sleeps (flow control); default a timer. Tests move a manual clock instead. */
  sleep?: (ms: number) => Promise<void>;
  /** A stack check's fault layer watching each attempt's provider client (the handler sets it with faults on only). */
  observeProvider?: ProviderObserver;
}

/**
 * The worker runtime: message ▶ sender allowed for its tenant ▶ verified payload ▶ claim ▶ job ▶ recorded outcome.
 * A job type's approval gate turns a first message into a row awaiting_approval (no claim, nothing run, acknowledged).
 * A first message creates its row only once its payload verifies (the body hashes to the message's hash), so a
 * message naming another tenant's identity with a made-up hash creates nothing that could block it. A message is
 * only acknowledged once the row it concerns has committed; bad input becomes a quarantine record or a
 * quarantined item, never a crash; the same identity never runs twice at once in this process.
 */
class WorkerRuntime {
  readonly workerId: string;
  private readonly telemetry: Telemetry;
  private readonly serializer = new KeyedSerializer();
  private readonly leases = new Map<string, LeaseRequest>();

  constructor(private readonly options: WorkerRuntimeOptions) {
    // A worker bundled without flow control refuses at start a type that declares limits or rate limits (defineJob
    // refuses them there too): it never runs one unlimited, and its other flow-control paths are defined out.
    const limited =
      process.env.LEASEFENCE_FLOW_CONTROL === 'omitted'
        ? options.registry.all().find(({ flow }) => flow?.concurrency !== undefined || flow?.rateLimit !== undefined)
        : undefined;
    if (limited) throw new ConfigurationError(`job type ${limited.type}: ${FLOW_CONTROL_OMITTED}`);
    this.workerId = options.workerId ?? `worker-${randomUUID()}`;
    this.telemetry = options.telemetry ?? silentTelemetry;
  }

  /** Handles one message; resolves when it may be acknowledged, rejects when it must be redelivered. */
  async handleMessage(message: QueueMessage): Promise<MessageResult> {
    const parsed = parseEnvelope(message.body);
    if (!parsed.ok) return this.quarantineMessage(message, parsed.problem, parsed.detail);
    const key = `${parsed.identity.tenantId}\u0000${parsed.identity.operationId}`;
    const tracer = this.options.tracer?.();
    if (tracer === undefined) return this.serializer.run(key, () => this.handleEnvelope(message, parsed));
    // The message's span (the producer's send, or the parent's successor enqueue) is this span's parent: one trace.
    return tracer.span(
      SpanName.process,
      () => ({ identity: parsed.identity, kind: parsed.envelope.kind }),
      () => this.serializer.run(key, () => this.handleEnvelope(message, parsed, tracer)),
      { parent: message.trace, kind: 'consumer' },
    );
  }

  /** The parsed message on its way in: its identity is the one parseEnvelope built, passed along, never rebuilt. */
  private async handleEnvelope(
    message: QueueMessage,
    parsed: ReceivedMessage,
    tracer?: JobTracer,
  ): Promise<MessageResult> {
    const { envelope, identity } = parsed;
    const policy = this.options.senderTenants;
    const sender = policy ? checkSender(policy, message.sender ?? {}, identity.tenantId) : { ok: true as const };
    if (!sender.ok) {
      // No identity on the record: the sender's claim about the tenant is what was refused.
      return this.quarantineMessage(message, TENANT_NOT_ALLOWED_FOR_SENDER, sender.detail);
    }
    const definition = this.options.registry.get(envelope.jobType);
    if (!definition) {
      await noteUnrunnable(this.options.store, this.telemetry, { identity, jobType: envelope.jobType });
      // The job type came from the body: the detail does not repeat it.
      return this.quarantineMessage(message, 'unknown_job_type', 'job type is not registered', identity);
    }
    const unrunnable = { identity, jobType: definition.type, runsVersion: definition.version };
    if (envelope.jobVersion !== undefined && envelope.jobVersion !== definition.version) {
      await noteUnrunnable(this.options.store, this.telemetry, unrunnable);
      // Never guess at a payload built for another version of the job (the numbers are not repeated: they came from the body).
      return this.quarantineMessage(
        message,
        JOB_VERSION_UNSUPPORTED,
        'the message names a job version this worker does not run',
        identity,
        definition.type,
      );
    }
    // A body carried in the message is checked (nothing written), then it is an inline job whose body is stored
    // once its row is bound to this message: a message the row refuses leaves the payloads table as it was.
    const inline = this.options.inlinePayloads ?? 'accept';
    const adoption = await adoptCarriedBody(parsed, this.options.payloads, inline);
    if (adoption && !adoption.adopted) {
      return this.quarantineMessage(message, adoption.reason, adoption.detail, identity);
    }
    const received = adoption?.bound ?? (boundAsReceived(parsed) as BoundMessage);
    let precheck = adoption ? adoption.precheck : await this.payloadBeforeCreate(received);
    const rowBound: RowBound | undefined = adoption?.storeAfterRow
      ? async (row) => {
          // A body the table did not keep (erased since, or another stored meanwhile) is not reused by the claim.
          precheck = (await storeCarriedBody(this.options.payloads as PayloadStore, parsed, row)) ?? precheck;
        }
      : undefined;
    // The producer a `not-producer` approval is checked against: the original sender, never a relay that moved it.
    const producerId = originalSender(policy, message.sender ?? {});
    const gate =
      definition.approval === undefined
        ? undefined
        : firstMessageGate(definition, precheck, this.options.store.now(), producerId);
    if (this.options.disabledJobTypes?.includes(definition.type)) {
      return this.defer(message, definition, received, precheck, gate, rowBound);
    }
    const lease = this.leaseFor(definition);
    const mayCreate = precheck?.ok === true;
    const retryWaker = this.wakerFor(definition, message.lane);
    // A declared rate limit takes its token before the claim (no attempt used, nothing held while it waits).
    // Defined out without flow control: such a worker refused at start every type declaring a rate limit.
    if (
      process.env.LEASEFENCE_FLOW_CONTROL !== 'omitted' &&
      definition.flow?.rateLimit !== undefined &&
      gate === undefined
    ) {
      const { store, sleep } = this.options;
      const deps = { store, telemetry: this.telemetry, ...(sleep ? { sleep } : {}), sources: this.payloadSources() };
      const over = await (await loadRateGate()).overBudget(deps, definition, received, precheck);
      if (over) return this.defer(message, definition, received, precheck, gate, rowBound, { ...over, retryWaker });
    }
    const acquisition = await traced(
      tracer,
      SpanName.claim,
      () => ({ identity, jobType: definition.type }),
      () => acquireClaim(this.options.store, definition, received, lease, mayCreate, gate, rowBound),
    );
    if (!acquisition.acquired) {
      if (acquisition.reason === 'payload_conflict') {
        return this.quarantineMessage(message, 'payload_conflict', acquisition.detail, identity, definition.type);
      }
      if (acquisition.reason === 'not_created')
        return this.refuseUnverified(message, precheck, identity, definition.type);
      if (acquisition.reason === 'version_unsupported') {
        await noteUnrunnable(this.options.store, this.telemetry, unrunnable);
        const detail = 'the row is bound to a job version this worker does not run';
        return this.quarantineMessage(message, JOB_VERSION_UNSUPPORTED, detail, identity, definition.type);
      }
      if (acquisition.reason === 'awaiting_approval' && definition.approval !== undefined) {
        await openApprovalRecord(this.options.store, this.options.payloads, definition, identity, producerId);
      }
      this.telemetry.info('message needs no work', { identity, reason: acquisition.reason });
      return { status: 'skipped', reason: acquisition.reason, identity };
    }
    const claim = acquisition.claim;
    this.telemetry.count(MetricName.Claims);
    if (claim.takeover) this.telemetry.count(MetricName.Takeovers);
    const fields = { identity, jobType: envelope.jobType, fence: claim.fence, attempt: claim.attempt };
    // One INFO line per attempt ("attempt ended", below); a takeover also says so when it happens, since the attempt
    // it supersedes may never log its end. A first claim is in the row's attempt history and the Claims metric.
    if (claim.takeover) this.telemetry.info('claimed', { ...fields, takeover: true });
    const payload = await this.verifiedPayload(claim, definition.payload, precheck);
    if (!payload.ok && payload.notStoredYet) {
      const wait = await awaitMissingBody(this.options.store, claim, payload);
      if (wait.waiting) {
        this.telemetry.info('claimed row has no body yet: not run, queued for it', { ...fields, waitMs: wait.waitMs });
        return { status: 'skipped', reason: PAYLOAD_PENDING, identity };
      }
      this.telemetry.count(MetricName.Quarantined, 1, claim.jobType);
      this.telemetry.warn('work item quarantined', { ...fields, errorCode: wait.errorCode });
      return { status: 'item_quarantined', reason: wait.errorCode, identity, fence: claim.fence };
    }
    if (!payload.ok) {
      await this.options.store.quarantine(claim, { errorCode: payload.errorCode, message: payload.message });
      this.telemetry.count(MetricName.Quarantined, 1, claim.jobType);
      this.telemetry.warn('work item quarantined', { ...fields, errorCode: payload.errorCode });
      return { status: 'item_quarantined', reason: payload.errorCode, identity, fence: claim.fence };
    }
    const unapproved = requiresApproval(definition.approval, payload.body)
      ? await missingApproval(this.options.store, definition, identity, claim.payloadHash)
      : undefined;
    if (unapproved !== undefined) {
      // Checked against the approval record, never the row (a producer may write its own rows): a row written where
      // the definitions were not known, or rewritten as approved by its producer, never runs without an approval.
      const failure = { errorCode: APPROVAL_MISSING, message: `the job type requires approval: ${unapproved}` };
      await this.options.store.quarantine(claim, failure);
      this.telemetry.count(MetricName.Quarantined, 1, claim.jobType);
      this.telemetry.warn('work item quarantined', { ...fields, errorCode: APPROVAL_MISSING });
      return { status: 'item_quarantined', reason: APPROVAL_MISSING, identity, fence: claim.fence };
    }
    // A job type with concurrency limits holds a slot of each while it runs (loaded only for such a type).
    const slots =
      process.env.LEASEFENCE_FLOW_CONTROL !== 'omitted' && definition.flow?.concurrency
        ? await takeSlots(this.options, this.telemetry, {
            definition,
            claim,
            payload: payload.body,
            lane: laneOf(definition, message.lane),
          })
        : undefined;
    if (slots && !slots.run) {
      this.telemetry.info('job not run: concurrency limit', { ...fields, reason: slots.reason });
      if (slots.reason === 'concurrency_key_invalid')
        return { status: 'item_quarantined', reason: slots.reason, identity, fence: claim.fence };
      return { status: 'skipped', reason: slots.reason, identity };
    }
    const result = await executeClaimedJob(
      {
        store: this.options.store,
        client: this.options.client,
        telemetry: this.telemetry,
        registry: this.options.registry,
        payloads: this.options.payloads,
        wake: this.options.wake,
        ...(this.options.heartbeatIntervalMs !== undefined
          ? { heartbeatIntervalMs: this.options.heartbeatIntervalMs }
          : {}),
        ...(retryWaker ? { retryWaker } : {}),
        ...(this.options.sleep ? { sleep: this.options.sleep } : {}),
        ...(this.options.observeProvider ? { observeProvider: this.options.observeProvider } : {}),
        ...(tracer ? { tracer } : {}),
        ...(slots ? { onLeaseRenewed: slots.hold.renew } : {}),
      },
      definition,
      claim,
      lease,
      payload.body,
    ).finally(() => slots?.hold.release());
    this.countOutcome(result, claim.jobType);
    this.telemetry.info('attempt ended', { ...fields, takeover: claim.takeover, state: result.state });
    return { status: 'executed', identity, fence: claim.fence, result };
  }

  /**
   * The lease this worker claims a job type with, parsed at its boundary (this worker's id and the job
   * definition) on the type's first message, then reused for every message; a bad one is refused every time.
   */
  private leaseFor(definition: AnyJobDefinition): LeaseRequest {
    let lease = this.leases.get(definition.type);
    if (lease === undefined) {
      const { leaseMs, target: targetClass, version: jobVersion } = definition;
      const keyRetentionMs = definition.provider?.keyRetentionMs;
      lease = parseLease({ owner: this.workerId, leaseMs, targetClass, jobVersion, keyRetentionMs });
      this.leases.set(definition.type, lease);
    }
    return lease;
  }

  /** Where a job's wake-ups go: its lane's waker (laneOf), the urgent lane's when no bulk queue exists. */
  private wakerFor(definition: JobDefinition<unknown>, lane: Priority | undefined): RetryWaker | undefined {
    const bulk = laneOf(definition, lane) === 'bulk';
    return (bulk ? this.options.bulkRetryWaker : undefined) ?? this.options.retryWaker;
  }

  /**
   * A switched-off job type (the sweeper re-signals the row), or one whose provider budget is empty (`budget`: the
   * row wakes itself after the budget's delay, no attempt used): the row waits queued, the message is acknowledged.
   */
  private async defer(
    message: QueueMessage,
    definition: JobDefinition<unknown>,
    received: BoundMessage,
    precheck: LoadedPayload | undefined,
    gate: ApprovalGate | undefined,
    rowBound: RowBound | undefined,
    budget?: OverBudget & { retryWaker: RetryWaker | undefined },
  ): Promise<MessageResult> {
    const { envelope, identity } = received;
    const mayCreate = precheck?.ok === true;
    const deferral = await deferDisabled(this.options.store, definition, received, mayCreate, gate, rowBound);
    if (!deferral.deferred) {
      if (deferral.reason === 'not_created') return this.refuseUnverified(message, precheck, identity, definition.type);
      return this.quarantineMessage(message, deferral.reason, deferral.detail, identity, definition.type);
    }
    // A budget wait (never in a worker bundled without flow control: defined out there).
    if (process.env.LEASEFENCE_FLOW_CONTROL !== 'omitted' && budget)
      return (await loadRateGate()).wakeDeferred(
        { store: this.options.store, telemetry: this.telemetry },
        definition,
        received,
        budget,
      );
    this.telemetry.count(MetricName.Deferred);
    this.telemetry.info('job type disabled: message acknowledged, row left queued', {
      identity,
      jobType: envelope.jobType,
    });
    return { status: 'deferred', reason: 'job_type_disabled', identity };
  }

  /**
   * A first message's payload, verified before any row exists (undefined for a wake, which never creates one): the
   * body from the payloads table or the resolver must hash to the message's hash.
   */
  private async payloadBeforeCreate({ envelope, identity }: BoundMessage): Promise<LoadedPayload | undefined> {
    if (envelope.kind === 'wake') return undefined;
    return loadVerifiedPayload(this.payloadSources(), {
      identity,
      payloadHash: envelope.payloadHash,
      payloadInline: !('ref' in envelope.payload),
      ...('ref' in envelope.payload ? { payloadRef: envelope.payload.ref } : {}),
    });
  }

  /** A first message whose payload did not verify, for an identity without a row: quarantined, no row created. */
  private refuseUnverified(
    message: QueueMessage,
    precheck: LoadedPayload | undefined,
    identity: JobIdentity,
    jobType: string,
  ): Promise<MessageResult> {
    const failed = precheck && !precheck.ok ? precheck : { errorCode: 'payload_missing', message: 'no payload' };
    const detail = `${failed.message}; no work row was created`;
    return this.quarantineMessage(message, failed.errorCode, detail, identity, jobType);
  }

  private payloadSources(): PayloadSources {
    return {
      ...(this.options.payloads ? { payloads: this.options.payloads } : {}),
      ...(this.options.payloadResolver ? { resolver: this.options.payloadResolver } : {}),
    };
  }

  /**
   * The claim's payload, hash-checked (the body verified before the row was created is reused when it is the one the
   * claim is bound to), then parsed with the job's schema (schema paths and codes only, never values or keys from the body).
   */
  private async verifiedPayload(
    claim: Claim,
    schema: z.core.$ZodType<unknown>,
    precheck: LoadedPayload | undefined,
  ): Promise<{ ok: true; body: unknown } | { ok: false; errorCode: string; message: string; notStoredYet?: true }> {
    const reusable = precheck?.ok === true && precheck.payloadHash === claim.payloadHash;
    const loaded = reusable ? precheck : await loadVerifiedPayload(this.payloadSources(), claim);
    if (!loaded.ok) return loaded;
    const parsed = z.safeParse(schema, loaded.body);
    if (parsed.success) return { ok: true, body: parsed.data };
    return {
      ok: false,
      errorCode: 'payload_schema',
      message: `payload failed its schema at ${describeIssues(schema, parsed.error.issues)}`,
    };
  }

  private async quarantineMessage(
    message: QueueMessage,
    reason: string,
    detail: string,
    identity?: JobIdentity,
    /** The registered job type, when the message got that far (never the body's unchecked claim). */
    jobType?: string,
  ): Promise<MessageResult> {
    await this.options.store.recordQuarantine({
      messageId: message.messageId,
      body: message.body,
      reason,
      detail,
      ...(message.receiveCount !== undefined ? { receiveCount: message.receiveCount } : {}),
      ...(identity !== undefined ? { tenantId: identity.tenantId, operationId: identity.operationId } : {}),
    });
    this.telemetry.count(MetricName.Quarantined, 1, jobType);
    this.telemetry.warn('message quarantined', { reason });
    return { status: 'quarantined', reason };
  }

  private countOutcome(result: ExecutionResult, jobType: string): void {
    const metric = {
      [WorkState.succeeded]: MetricName.Succeeded,
      [WorkState.failed_terminal]: MetricName.FailedTerminal,
      [WorkState.unknown]: MetricName.Unknown,
      [WorkState.queued]: MetricName.RetryScheduled,
      rate_limited: undefined, // counted as RateLimitDeferred where it was given back
      ownership_lost: undefined,
      lease_in_doubt: undefined,
    }[result.state];
    // Only Unknown has a per-type alarm; the other outcomes stay service-wide.
    if (metric) this.telemetry.count(metric, 1, metric === MetricName.Unknown ? jobType : undefined);
  }
}

export {
  type DeferReason,
  type MessageResult,
  type QueueMessage,
  TENANT_NOT_ALLOWED_FOR_SENDER,
  WorkerRuntime,
  type WorkerRuntimeOptions,
};
