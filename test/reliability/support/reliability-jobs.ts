import { z } from 'zod';
import type { JobIdentity } from '../../../lib/identity.js';
import { type AnyJobDefinition, defineJob, type JobContext } from '../../../lib/job-definition.js';
import type { EffectLedger } from './effect-ledger.js';

/** Points inside a job where a test may stop it (to pause, kill or delay the worker exactly there). */
type Checkpoint = 'before-write' | 'after-effect';

/** Where the job is when it reaches a checkpoint. */
interface CheckpointContext {
  identity: JobIdentity;
  fence: number;
  attempt: number;
}

/** What the reliability jobs need from the process running them. */
interface ReliabilityJobHooks {
  workerId: string;
  ledger: EffectLedger;
  /** Table of the class B records (the ledger's table works: pk/sk strings). */
  recordsTable: string;
  leaseMs: number;
  /** Resolves when the test lets the job go on; called only where the payload asks for it. */
  checkpoint?: (point: Checkpoint, context: CheckpointContext) => Promise<void>;
  /** Called as each run starts, under its claim (before any effect). */
  onRun?: (context: CheckpointContext) => Promise<void>;
}

/** Payload of every reliability job: an amount, simulated work, and where (and on which attempt) to stop. */
const reliabilityPayload = z.strictObject({
  amount: z.number().int().min(1).max(1_000),
  workMs: z.number().int().min(0).max(5_000),
  pauseAt: z.enum(['none', 'before-write', 'after-effect']),
  /** Attempt that stops at `pauseAt`; 0 means every attempt. */
  pauseAttempt: z.number().int().min(0).max(10),
});
/** The payload every reliability job takes. */
type ReliabilityPayload = z.infer<typeof reliabilityPayload>;

/** Job type names of the three classes. */
const ReliabilityJobType = { record: 'rel-record', charge: 'rel-charge', mail: 'rel-mail' } as const;

/** The target class of a reliability job type (undefined for any other type). */
function reliabilityJobClass(jobType: string): 'B' | 'C' | 'D' | undefined {
  const classes: Record<string, 'B' | 'C' | 'D'> = {
    [ReliabilityJobType.record]: 'B',
    [ReliabilityJobType.charge]: 'C',
    [ReliabilityJobType.mail]: 'D',
  };
  return classes[jobType];
}

/** Key of the class B record an operation owns. */
function recordKey(identity: JobIdentity): { pk: string; sk: string } {
  return { pk: `record#${identity.tenantId}#${identity.operationId}`, sk: 'record' };
}

/** Simulated work: reports progress every 100 ms and stops as soon as ownership is lost. */
async function work(hooks: ReliabilityJobHooks, ctx: JobContext<ReliabilityPayload>): Promise<void> {
  await hooks.onRun?.({ identity: ctx.identity, fence: ctx.fence, attempt: ctx.attempt });
  for (let elapsed = 0; elapsed < ctx.payload.workMs; elapsed += 100) {
    await new Promise((resolve) => setTimeout(resolve, Math.min(100, ctx.payload.workMs - elapsed)));
    ctx.signal.throwIfAborted();
    ctx.progress();
  }
}

async function stopAt(hooks: ReliabilityJobHooks, point: Checkpoint, ctx: JobContext<ReliabilityPayload>) {
  const { pauseAt, pauseAttempt } = ctx.payload;
  if (pauseAt !== point || (pauseAttempt !== 0 && pauseAttempt !== ctx.attempt) || !hooks.checkpoint) return;
  await hooks.checkpoint(point, { identity: ctx.identity, fence: ctx.fence, attempt: ctx.attempt });
}

/**
 * The three job types of the suite: class B (a fenced record owned by the operation), class C (the
 * provider's idempotency key, reconcile before a retry) and class D (one attempt, no key, no lookup).
 */
function reliabilityJobs(hooks: ReliabilityJobHooks): AnyJobDefinition[] {
  const common = { version: 1, leaseMs: hooks.leaseMs, payload: reliabilityPayload, retry: { baseDelayMs: 200 } };
  const record = defineJob({
    ...common,
    type: ReliabilityJobType.record,
    target: 'B',
    maxAttempts: 3,
    run: async (ctx) => {
      await work(hooks, ctx);
      await stopAt(hooks, 'before-write', ctx);
      const set = { writtenBy: hooks.workerId, tenantId: ctx.identity.tenantId, amount: ctx.payload.amount };
      await ctx.records.write({ tableName: hooks.recordsTable, key: recordKey(ctx.identity) }, { set });
      return { outcomeCode: 'written', result: { fence: ctx.fence } };
    },
  });
  const charge = defineJob({
    ...common,
    type: ReliabilityJobType.charge,
    target: 'C',
    maxAttempts: 3,
    run: async (ctx) => {
      await work(hooks, ctx);
      const made = await hooks.ledger.charge(ctx.idempotencyKey, ctx.identity, ctx.payload.amount, hooks.workerId);
      await stopAt(hooks, 'after-effect', ctx);
      return { outcomeCode: 'charged', result: { chargeId: made.chargeId } };
    },
    reconcile: async (ctx) => {
      const found = await hooks.ledger.lookupCharge(ctx.identity.tenantId, ctx.idempotencyKey);
      if (!found) return { status: 'not_done' };
      return { status: 'done', outcome: { outcomeCode: 'charged', result: { chargeId: found.chargeId } } };
    },
  });
  const mail = defineJob({
    ...common,
    type: ReliabilityJobType.mail,
    target: 'D',
    run: async (ctx) => {
      await work(hooks, ctx);
      await hooks.ledger.sendMail(ctx.identity, hooks.workerId);
      await stopAt(hooks, 'after-effect', ctx);
      return { outcomeCode: 'sent' };
    },
  });
  return [record, charge, mail];
}

export {
  type Checkpoint,
  type CheckpointContext,
  type ReliabilityJobHooks,
  ReliabilityJobType,
  type ReliabilityPayload,
  recordKey,
  reliabilityJobClass,
  reliabilityJobs,
};
