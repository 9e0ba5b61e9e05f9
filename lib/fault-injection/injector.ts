import { AsyncLocalStorage } from 'node:async_hooks';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { JobIdentity } from '../identity.js';
import type { ProviderDeclaration } from '../job-definition.js';
import { CheckEvidence, type ObservedEffect, type ObservedWrite } from '../store/index.js';
import { type LogFields, scrub } from '../telemetry.js';
import { idempotencyKeyFor } from '../worker/job-context.js';
import type { MessageResult } from '../worker/worker-runtime.js';
import { classifyRequest, isCompletion } from './classify.js';
import { type FaultKind, type FaultPlan, type FaultPlanSource, faultFor, parsePlan } from './plan.js';

/** Thrown in place of a request of an attempt the plan crashed: nothing of it reaches the tables any more. */
class InjectedCrash extends Error {
  override readonly name = 'InjectedCrash';
}

/** One attempt of a check run's message, while it runs: what was armed, what fired, what it wrote and logged. */
interface Attempt {
  readonly fault: FaultKind;
  readonly plan: FaultPlan;
  readonly identity: JobIdentity;
  readonly tenantId: string;
  readonly firstDelivery: boolean;
  fired: boolean;
  crashed: boolean;
  pausing: Promise<void> | undefined;
  resumed: boolean;
  resumedAt: number | undefined;
  readonly writes: ObservedWrite[];
  readonly effects: ObservedEffect[];
  readonly leaks: string[];
  telemetryEvents: number;
}

/** The record as the fault layer needs it. */
interface FaultRecord {
  readonly messageId: string;
  readonly body: string;
  readonly receiveCount: number;
}

/** Where the fault layer reads its plan and writes its evidence. */
interface FaultInjectorOptions {
  readonly client: DynamoDBDocumentClient;
  readonly jobsTable: string;
  readonly payloadsTable: string;
  readonly plan: FaultPlanSource;
  readonly now?: () => number;
}

const sleep = (ms: number) => new Promise<void>((done) => setTimeout(done, ms));

/** How often a paused attempt looks whether its claim was taken over. */
const TAKEOVER_POLL_MS = 250;

/** The tenant and operation a job or wake-up envelope names, or undefined (the runtime judges the rest). */
function identityOf(body: string): JobIdentity | undefined {
  const parsed = parsedBody(body);
  if (typeof parsed?.tenantId !== 'string' || typeof parsed.operationId !== 'string') return undefined;
  return { tenantId: parsed.tenantId, operationId: parsed.operationId };
}

function parsedBody(body: string): { tenantId?: unknown; operationId?: unknown; kind?: unknown } | undefined {
  try {
    const parsed = JSON.parse(body) as unknown;
    return parsed !== null && typeof parsed === 'object' ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/**
 * True for the one delivery a plan's fault is armed for: the first receipt of the producer's own message (`kind`
 * job). A wake-up (the sweeper's re-signal of an expired claim, a retry's wake, a takeover's copy) is a new message
 * received once too, but a later attempt of the same operation: a fault armed there again would crash the recovery
 * the scenario waits for (an operation crashed on every attempt ends unknown, a correct job judged NO-GO).
 */
function isFirstDelivery(record: FaultRecord): boolean {
  return record.receiveCount <= 1 && parsedBody(record.body)?.kind === 'job';
}

/** An error the SDK's retry strategy treats as transient: the request may have landed, so it is sent again. */
function lostResponse(): Error {
  const error = new Error('the response to the completion write was lost (injected by a stack check)');
  error.name = 'TimeoutError';
  return error;
}

/** True for the write that creates a work item already claimed (a takeover's claim is an UpdateItem). */
function createsClaimedItem(operation: string, input: Record<string, unknown>, jobsTable: string): boolean {
  if (operation !== 'PutItem' || input.TableName !== jobsTable) return false;
  const item = input.Item as Record<string, { S?: string }> | undefined;
  return item?.state?.S === 'claimed' && (item.sk?.S ?? '').startsWith('op#');
}

/** The fence a claimed row's PutItem writes (1 when it names none). */
function claimedFence(input: Record<string, unknown>): number {
  const item = input.Item as Record<string, { N?: string }> | undefined;
  return Number(item?.fence?.N ?? 1);
}

/** True for the first work-item write of a message: a PutItem of a work row. */
function createsWorkItem(operation: string, input: Record<string, unknown>, jobsTable: string): boolean {
  if (operation !== 'PutItem' || input.TableName !== jobsTable) return false;
  const item = input.Item as Record<string, { S?: string }> | undefined;
  return (item?.sk?.S ?? '').startsWith('op#');
}

/**
 * The deployed worker's fault layer for `leasefence check --stack`: loaded only when the stack enables fault
 * injection and a record names a check tenant. A record whose tenant the current plan does not name (a real
 * tenant, another run's, or any when no plan is armed) is handled untouched and unobserved. For a run's tenant it
 * applies the armed fault at the worker's DynamoDB client (a middleware that acts only inside that attempt's async
 * context), records the job's writes and log fields, and writes one evidence row through the store.
 */
class FaultInjector {
  private readonly attempts = new AsyncLocalStorage<Attempt>();
  /** Set while a method of the job's declared provider client runs: its requests are the provider's, not the job's. */
  private readonly providerCalls = new AsyncLocalStorage<true>();
  private readonly evidence: CheckEvidence;
  private readonly now: () => number;

  constructor(private readonly options: FaultInjectorOptions) {
    this.now = options.now ?? Date.now;
    this.evidence = new CheckEvidence(options.client, options.jobsTable, this.now);
    options.client.middlewareStack.add((next, context) => (args) => this.intercept(next, context, args), {
      step: 'deserialize',
      name: 'leasefenceCheckFaults',
    });
  }

  /**
   * The pause of a pause-after-claim attempt: the plan's pause (past the lease), then on until a second delivery took
   * the claim over (the work row's fence above `fence`), for at most as long again. A fixed pause alone let the
   * attempt resume before a slow worker's takeover (the scenario then not evaluated). Its reads run outside the
   * attempt's context (they would wait for this very pause).
   */
  private async pauseUntilTakeover(attempt: Attempt, fence: number): Promise<void> {
    await sleep(attempt.plan.pauseMs);
    const deadline = this.now() + attempt.plan.pauseMs;
    const takenOver = () => this.attempts.exit(async () => (await this.evidence.workFence(attempt.identity)) > fence);
    while (this.now() < deadline && !(await takenOver().catch(() => false))) await sleep(TAKEOVER_POLL_MS);
  }

  /** Handles one record: untouched unless the plan names its tenant; then faulted, observed and recorded. */
  async handle(record: FaultRecord, run: () => Promise<MessageResult>): Promise<MessageResult> {
    const identity = identityOf(record.body);
    const plan = identity ? parsePlan(await this.options.plan(), this.now()) : undefined;
    const fault = identity && plan ? faultFor(plan, identity.tenantId) : undefined;
    if (!identity || !plan || !fault) return run();
    const attempt: Attempt = {
      fault,
      plan,
      identity,
      tenantId: identity.tenantId,
      firstDelivery: isFirstDelivery(record),
      fired: false,
      crashed: false,
      pausing: undefined,
      resumed: false,
      resumedAt: undefined,
      writes: [],
      effects: [],
      leaks: [],
      telemetryEvents: 0,
    };
    const copies = fault === 'duplicate-delivery' && attempt.firstDelivery ? plan.copies : 1;
    if (copies > 1) attempt.fired = true;
    const settled = await this.attempts.run(attempt, () =>
      Promise.allSettled(Array.from({ length: copies }, () => run())),
    );
    const outcomes = settled.map((one) =>
      one.status === 'fulfilled' ? `acked:${describe(one.value)}` : `not acked:${(one.reason as Error).name}`,
    );
    await this.evidence.record(identity, {
      messageId: record.messageId,
      receiveCount: record.receiveCount,
      fault,
      fired: attempt.fired,
      outcomes: attempt.crashed ? ['not acked:InjectedCrash'] : outcomes,
      writes: attempt.writes,
      effects: attempt.effects,
      leaks: [...new Set(attempt.leaks)],
      telemetryEvents: attempt.telemetryEvents,
      ...(attempt.resumedAt !== undefined ? { resumedAt: attempt.resumedAt } : {}),
    });
    if (attempt.crashed) throw new InjectedCrash('the attempt crashed (injected by a stack check)');
    const failure = settled.find((one) => one.status === 'rejected');
    if (failure) throw failure.reason;
    const first = settled[0];
    if (first?.status !== 'fulfilled') throw new InjectedCrash('no copy was handled');
    return first.value;
  }

  /**
   * A log event of the running attempt, as the telemetry emits it (scrubbed: the identity hashed, errors reduced to
   * name and message): a raw tenant id left in it is a privacy leak (control 9).
   */
  observeTelemetry(message: string, fields: LogFields | undefined): void {
    const attempt = this.attempts.getStore();
    if (!attempt) return;
    attempt.telemetryEvents += 1;
    const scrubbed = scrub(fields);
    const holders = Object.keys(scrubbed).filter((key) => JSON.stringify(scrubbed[key]).includes(attempt.tenantId));
    if (message.includes(attempt.tenantId)) holders.push('message');
    if (holders.length > 0) {
      attempt.leaks.push(`log event "${message}" holds the raw tenant id (in ${holders.join(', ')})`);
    }
  }

  /**
   * The provider client an attempt of a check run's message builds, watched: its requests are marked as the
   * provider's (a class C/D provider's storage is the external system), and each declared effect call that returned
   * is recorded with whether it carried the operation's idempotency key. Any other attempt's client is returned as is.
   */
  observeProvider<Client>(declaration: ProviderDeclaration<Client>, client: Client): Client {
    const attempt = this.attempts.getStore();
    if (!attempt || client === null || typeof client !== 'object') return client;
    const calls = this.providerCalls;
    const key = idempotencyKeyFor(attempt.identity);
    return new Proxy(client as object, {
      get(target, property) {
        const value = Reflect.get(target, property, target) as unknown;
        if (typeof value !== 'function' || typeof property !== 'string') return value;
        const effect = declaration.effects.includes(property);
        return (...args: unknown[]) =>
          calls.run(true, async () => {
            const result = await (value as (...parameters: unknown[]) => unknown).apply(target, args);
            if (effect) attempt.effects.push({ method: property, keyed: carriesKey(args, key) });
            return result;
          });
      },
    }) as Client;
  }

  private async intercept<A extends { input: object }, O>(
    next: (args: A) => Promise<O>,
    context: { commandName?: string },
    args: A,
  ): Promise<O> {
    const attempt = this.attempts.getStore();
    if (!attempt) return next(args);
    if (attempt.crashed) throw new InjectedCrash('the attempt has crashed');
    if (attempt.pausing) await attempt.pausing;
    const operation = (context.commandName ?? '').replace(/Command$/, '');
    const input = args.input as Record<string, unknown>;
    const { jobsTable, payloadsTable } = this.options;
    const armed = attempt.firstDelivery && !attempt.fired;
    const arms = (kind: FaultKind) => armed && attempt.fault === kind;
    if (arms('crash-on-receipt') && createsWorkItem(operation, input, jobsTable)) {
      attempt.fired = true;
      throw new InjectedCrash('crashed before the work item committed');
    }
    if (arms('crash-after-effect') && isCompletion(operation, input, jobsTable)) {
      attempt.fired = true;
      attempt.crashed = true;
      throw new InjectedCrash('crashed after the effect, before the completion write');
    }
    const writes = classifyRequest(operation, input, jobsTable, [payloadsTable]).writes;
    const provider = this.providerCalls.getStore() === true;
    const record = (landed: boolean) => {
      for (const write of writes) {
        attempt.writes.push({
          table: write.table,
          call: operation,
          fenced: write.fenced,
          landed,
          afterPause: attempt.resumed,
          ...(provider ? { provider } : {}),
        });
      }
    };
    let output: O;
    try {
      output = await next(args);
    } catch (error) {
      record(false);
      throw error;
    }
    record(true);
    if (arms('lost-completion') && isCompletion(operation, input, jobsTable)) {
      attempt.fired = true;
      throw lostResponse();
    }
    if (arms('pause-after-claim') && createsClaimedItem(operation, input, jobsTable)) {
      attempt.fired = true;
      attempt.pausing = this.pauseUntilTakeover(attempt, claimedFence(input)).then(() => {
        attempt.pausing = undefined;
        attempt.resumed = true;
        attempt.resumedAt = this.now();
      });
      await attempt.pausing;
    }
    return output;
  }
}

/** True when an argument (or a string field of an object argument) carries the operation's idempotency key. */
function carriesKey(args: readonly unknown[], key: string): boolean {
  const values = args.flatMap((arg) =>
    arg !== null && typeof arg === 'object' ? Object.values(arg as Record<string, unknown>) : [arg],
  );
  return values.some((value) => typeof value === 'string' && value.includes(key));
}

/** `succeeded`, `skipped:replay_finished`, `quarantined:payload_conflict`: one handled copy in a word. */
function describe(result: MessageResult): string {
  if (result.status === 'executed') {
    const outcome = result.result as { state: string; errorCode?: string };
    return outcome.errorCode ? `${outcome.state}:${outcome.errorCode}` : outcome.state;
  }
  return `${result.status}:${result.reason}`;
}

/** Builds the fault layer on the worker's client (adds its middleware once). */
function createFaultInjector(options: FaultInjectorOptions): FaultInjector {
  return new FaultInjector(options);
}

export { createFaultInjector, describe as describeMessageResult, FaultInjector, type FaultRecord, InjectedCrash };
