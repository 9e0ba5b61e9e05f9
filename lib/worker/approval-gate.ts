import * as z from 'zod/mini';
import { type ApprovalGate, Approvers, approvalGateFor, principalOf } from '../approval-policy.js';
import type { ValidIdentity } from '../identity.js';
import type { AnyJobDefinition } from '../job-definition.js';
import type { ApprovalRecord, PayloadStore, WorkItemStore } from '../store/index.js';
import type { LoadedPayload } from './load-payload.js';

// Used by worker-runtime.ts only for a job type with an `approval` policy; declarations only at module scope.

/**
 * The approval gate of a first message's new row: asked of the job type's policy with the payload as the job's own
 * schema parses it (the body verified before the row is created). No policy, no verified body, or a body failing the
 * schema ▶ undefined: such a row is claimed and quarantined before anything runs, so it needs no gate to stay unrun.
 * `producerId` is the message's original sender (originalSender: never a relay that moved it).
 */
function firstMessageGate(
  definition: AnyJobDefinition,
  verified: LoadedPayload | undefined,
  now: number,
  producerId: string | undefined,
): ApprovalGate | undefined {
  if (definition.approval === undefined || verified?.ok !== true) return undefined;
  const parsed = z.safeParse(definition.payload, verified.body);
  if (!parsed.success) return undefined;
  return approvalGateFor(definition.approval, parsed.data, now, producerId);
}

/**
 * Opens the approval record of a row found awaiting approval (created now by a first message, or written first by a
 * producer and woken), from what only the worker knows: the job definition's approvers and window (the row's expiry
 * only if earlier: the producer wrote it) and the message's original sender. A record already open is left as it is.
 * An inline body is kept at least a retention period past the window (PayloadStore.keepUntil), so an approval on the
 * window's last day still finds it; the record expires (TTL) the same retention period past the window. Nothing for a type without an approval policy, or a row no longer awaiting.
 */
async function openApprovalRecord(
  store: WorkItemStore,
  payloads: PayloadStore | undefined,
  definition: AnyJobDefinition,
  identity: ValidIdentity,
  producerId: string | undefined,
): Promise<void> {
  const policy = definition.approval;
  if (policy === undefined) return;
  const row = await store.get(identity);
  if (row?.state !== 'awaiting_approval') return;
  const expiresAt = Math.min(row.approvalExpiresAt ?? Number.POSITIVE_INFINITY, store.now() + policy.expiresAfterMs);
  const opening = {
    payloadHash: row.payloadHash,
    approvers: policy.approvers ?? Approvers.anyone,
    expiresAt,
    ...(producerId !== undefined ? { producerId: principalOf(producerId) } : {}),
  };
  // Kept (TTL) as long past the window as the body is: a job that can still run finds its record.
  const record = await store.approvals.records.open(identity, opening, payloads?.retentionMs);
  if (row.payloadInline === true && payloads) await payloads.keepUntil(identity, row.payloadHash, record.expiresAt);
}

/**
 * Whether `record` lets a job of `payloadHash` run under `approvers` (the worker's own job definition, not the
 * record's word alone): approved, for that hash, and for `not-producer` by a known approver who is not the known
 * producer. Undefined when it does; otherwise why not (codes only).
 */
function approvalGap(
  record: ApprovalRecord | undefined,
  payloadHash: string,
  approvers: Approvers,
): string | undefined {
  if (record === undefined) return 'no approval record (only a worker opens one, only the admin approves it)';
  if (record.decision !== 'approved') return 'the approval record carries no approval';
  if (record.payloadHash !== payloadHash) return 'the approval is for another payload hash';
  if (approvers !== 'not-producer') return undefined;
  if (record.producerId === undefined || record.approverId === undefined) return 'producer or approver not known';
  return record.producerId === record.approverId ? 'approved by its own producer' : undefined;
}

/**
 * Why a claimed gated job may not run (undefined: it may): its approval record, read now, must say approved, by an
 * approver the job definition's rule allows, for the payload hash its body was verified against. Nothing on the work
 * row counts (the producer may write it).
 */
async function missingApproval(
  store: WorkItemStore,
  definition: AnyJobDefinition,
  identity: ValidIdentity,
  payloadHash: string,
): Promise<string | undefined> {
  const record = await store.approvals.records.read(identity);
  return approvalGap(record, payloadHash, definition.approval?.approvers ?? Approvers.anyone);
}

export { approvalGap, firstMessageGate, missingApproval, openApprovalRecord };
