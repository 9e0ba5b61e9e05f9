import * as z from 'zod';
import { approveItem } from '../../lib/admin/approve.js';
import { requiresApproval } from '../../lib/approval-policy.js';
import { payloadHash } from '../../lib/hashing.js';
import type { JobIdentity } from '../../lib/identity.js';
import type { JobDefinition } from '../../lib/job-definition.js';
import { FINISHED_STATES, WorkState } from '../../lib/states.js';
import type { WorkItem } from '../../lib/store/index.js';
import { Remedy } from './remedies.js';
import { ScenarioId } from './scenario-support.js';
import { type StackProbe, StoppedProbeError } from './stack-probe.js';

/** The scenarios the check runs through a running stack (the ids it shares with `check` mean the same test). */
const StackScenarioId = {
  replay: 'replay',
  collidingIds: ScenarioId.collidingIds,
  changedPayload: ScenarioId.changedPayload,
  sharedRecord: ScenarioId.sharedRecord,
  malformedMessage: 'malformed-message',
  unknownJobType: 'unknown-job-type',
  schemaInvalid: 'schema-invalid-payload',
  approvalNeverRuns: ScenarioId.approvalNeverRuns,
  approvalReplacedPayload: ScenarioId.approvalReplacedPayload,
  approvalRacingCancel: ScenarioId.approvalRacingCancel,
  // With the stack's fault injection on (stack-check-faults.ts): the faults run inside its own worker.
  duplicateDelivery: ScenarioId.duplicateDelivery,
  staleResume: ScenarioId.staleResume,
  lostCompletion: ScenarioId.lostCompletion,
  crashAfterEffect: ScenarioId.crashAfterEffect,
  receiptCrash: ScenarioId.receiptCrash,
} as const;
type StackScenarioId = (typeof StackScenarioId)[keyof typeof StackScenarioId];

/** How one scenario went through the stack, and what it saw on the stack's tables. */
interface StackScenarioResult {
  readonly id: StackScenarioId;
  readonly title: string;
  readonly status: 'passed' | 'failed' | 'skipped';
  readonly detail: string;
  readonly remedies: readonly string[];
  readonly evidence: Readonly<Record<string, number | string | boolean>>;
}

type StackOutcome = Omit<StackScenarioResult, 'id' | 'title'>;

/** A scenario through a running stack: messages into its queue, effects read back from its tables. */
interface StackScenario {
  readonly id: StackScenarioId;
  readonly title: string;
  /** Only for job types this is true of (all when absent). */
  readonly applies?: (job: JobDefinition<unknown>) => boolean;
  run(probe: StackProbe, job: JobDefinition<unknown>, payloads: readonly unknown[]): Promise<StackOutcome>;
}

/** Who the check's own approvals are audited as. */
const CHECK_OPERATOR = { actor: 'leasefence check --stack', reason: 'go/no-go scenario through a running stack' };

/** The operation id every scenario uses under its own fresh tenant. */
const OPERATION = 'conformance-op';

/** Why a row did not settle: what the worker left (a quarantine record naming the reason), or a timeout. */
class Unsettled extends Error {
  constructor(readonly outcome: StackOutcome) {
    super(outcome.detail);
  }
}

/** Evidence key of an outcome that shows the job type cannot run on this stack at all (no other scenario can). */
const UNRUNNABLE = 'unrunnable';

const passed = (detail: string, evidence: StackOutcome['evidence'] = {}): StackOutcome => ({
  status: 'passed',
  detail,
  remedies: [],
  evidence,
});
const failed = (detail: string, remedy: string, evidence: StackOutcome['evidence'] = {}): StackOutcome => ({
  status: 'failed',
  detail,
  remedies: [remedy],
  evidence,
});
const notEvaluated = (detail: string, remedy?: string, evidence: StackOutcome['evidence'] = {}): StackOutcome => ({
  status: 'skipped',
  detail: `not evaluated: ${detail}`,
  remedies: remedy ? [remedy] : [],
  evidence,
});

/** The remedy when the stack's worker did not get to a message in time. */
const STACK_TOO_SLOW =
  "make sure the stack's worker is running and polling its queue (or give it longer: --settle-timeout)";

/**
 * Sends the job and waits until the stack's worker settled it; a row awaiting approval is approved for its own
 * payload hash (audited as the check) when `approve`. Throws Unsettled (the scenario is not evaluated, or failed
 * with what the worker said) when no row settled: a quarantine record names why (the stack does not run the type).
 * Only a first message that creates its row can be refused that way; `settled` waits for an existing one.
 */
async function completed(
  probe: StackProbe,
  job: JobDefinition<unknown>,
  identity: JobIdentity,
  payload: unknown,
  approve = true,
): Promise<WorkItem> {
  return (await completedMessage(probe, job, identity, payload, approve)).row;
}

/** completed(), also answering the id of the message it sent (its first delivery's evidence names it). */
async function completedMessage(
  probe: StackProbe,
  job: JobDefinition<unknown>,
  identity: JobIdentity,
  payload: unknown,
  approve = true,
): Promise<{ row: WorkItem; messageId: string }> {
  const messageId = await probe.send(job, identity, payload);
  const seen = await probe.settledOrRefused(identity, messageId);
  if (!seen) throw new Unsettled(notEvaluated("the stack's worker did not settle the job in time", STACK_TOO_SLOW));
  if ('quarantine' in seen) {
    const reason = String(seen.quarantine.reason);
    if (reason === 'unknown_job_type') {
      throw new Unsettled(
        notEvaluated(`the stack does not run job type ${job.type} (its worker quarantined the message)`),
      );
    }
    throw new Unsettled(
      failed(`the stack's worker quarantined the sample's message (${reason})`, Remedy.completingSample),
    );
  }
  const row =
    approve && seen.row.state === WorkState.awaiting_approval ? await approved(probe, identity, payload) : seen.row;
  if (row.errorCode === 'engine_capability_missing') {
    const detail = "the stack's DynamoDB lacks TransactWriteItems (class A cannot run on it)";
    throw new Unsettled(notEvaluated(detail, undefined, { [UNRUNNABLE]: true }));
  }
  return { row, messageId };
}

/**
 * Approves a waiting job as the check, for `hash`. The approval record opens when the stack's worker first handles
 * the job's message, which can come after its row shows awaiting_approval (a row its producer wrote first): while
 * the refusal is `approval_not_open` it is tried again, up to the probe's settle time; any other refusal is thrown.
 */
async function approveAsCheck(probe: StackProbe, identity: JobIdentity, hash: string): Promise<void> {
  let notOpen: unknown;
  const approvedNow = await probe.when(() =>
    approveItem(probe.stack.admin, identity, { ...CHECK_OPERATOR, payloadHash: hash }).then(
      () => true as const,
      (error: { refusal?: string }) => {
        if (error.refusal !== 'approval_not_open') throw error;
        notOpen = error;
        return undefined;
      },
    ),
  );
  if (!approvedNow) throw notOpen;
}

/** Approves a waiting job for its own payload hash (audited as the check) and waits until the worker finished it. */
async function approved(probe: StackProbe, identity: JobIdentity, payload: unknown): Promise<WorkItem> {
  await approveAsCheck(probe, identity, payloadHash(payload));
  const row = await probe.rowWhen(identity, (current) => FINISHED_STATES.includes(current.state));
  if (!row)
    throw new Unsettled(notEvaluated("the stack's worker did not run the approved job in time", STACK_TOO_SLOW));
  return row;
}

/** The part of a work row a message that needs no work must leave as it was. */
function fingerprint(row: WorkItem | undefined): string {
  if (!row) return 'absent';
  const { state, fence, attempts, updatedAt, outcomeCode, errorCode, payloadHash: hash } = row;
  return JSON.stringify({ state, fence, attempts, updatedAt, outcomeCode, errorCode, hash });
}

/** True when the sample payload needs the job type's approval. */
function gated(job: JobDefinition<unknown>, payload: unknown): boolean {
  const parsed = z.safeParse(job.payload, payload);
  return parsed.success && requiresApproval(job.approval, parsed.data);
}

/** Runs one scenario; an Unsettled wait becomes its outcome, any other error a failed scenario naming it. */
async function runStackScenario(
  scenario: StackScenario,
  probe: StackProbe,
  job: JobDefinition<unknown>,
  payloads: readonly unknown[],
): Promise<StackScenarioResult> {
  const named = { id: scenario.id, title: scenario.title };
  try {
    return { ...named, ...(await scenario.run(probe, job, payloads)) };
  } catch (error) {
    if (error instanceof Unsettled) return { ...named, ...error.outcome };
    if (error instanceof StoppedProbeError) return { ...named, ...notEvaluated('the check was interrupted') };
    const detail = `the scenario stopped: ${(error as Error).name}: ${(error as Error).message}`;
    return { ...named, ...failed(detail, Remedy.scenarioStopped) };
  }
}

export {
  approveAsCheck,
  CHECK_OPERATOR,
  completed,
  completedMessage,
  failed,
  fingerprint,
  gated,
  notEvaluated,
  OPERATION,
  passed,
  runStackScenario,
  STACK_TOO_SLOW,
  type StackOutcome,
  type StackScenario,
  StackScenarioId,
  type StackScenarioResult,
  UNRUNNABLE,
};
