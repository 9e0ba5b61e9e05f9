import * as z from 'zod/mini';
import { IllegalTransitionError, ItemNotFoundError } from '../errors.js';
import { formatIdentity, type JobIdentity, parseIdentity } from '../identity.js';
import { builtOnce } from '../internal/memoize.js';
import { parseInput } from '../internal/validation.js';
import type { OperatorAction } from '../store/index.js';
import { writeAuditRecord } from './audit.js';
import type { AdminDeps } from './deps.js';
import { actorSchema, callerSchema, reasonSchema } from './schemas.js';

/** Who reads (the authenticated caller) and, optionally, why. */
type ApprovalPayloadInput = Pick<OperatorAction, 'actor' | 'caller'> & { reason?: string };

/**
 * What an approver sees before deciding: the payload hash the approval binds (the row's), the body when the
 * payloads table holds one that hashes to exactly that (else `body: null` and `bodyStatus` saying why), the expiry
 * and who may approve. `auditId` names the audit record of this read.
 */
interface ApprovalPayloadView {
  tenantId: string;
  operationId: string;
  jobType: string;
  state: 'awaiting_approval';
  payloadHash: string;
  body: unknown;
  bodyStatus: 'verified' | 'ref' | 'erased' | 'absent' | 'mismatch';
  approvalExpiresAt?: number;
  approvers?: string;
  auditId: string;
}

// Built by its first caller, not at import: the admin function's cold start builds no schema for this route.
const readSchema = builtOnce(() =>
  z.strictObject({ actor: actorSchema, caller: z.optional(callerSchema), reason: z.optional(reasonSchema) }),
);

/**
 * The payload a job awaiting approval binds, for its approver: shown only while the row awaits approval (else
 * IllegalTransitionError, a 409), and only after an audit record of the read (`read_payload`, with the caller) is
 * written: a failed audit write shows nothing. The body is returned only when it hashes to the row's payload
 * hash, so what is shown is what an approval of that hash approves. The body is never logged (the router logs
 * route and hashed ids only). Missing ▶ ItemNotFoundError; bad input ▶ InvalidInputError.
 */
async function approvalPayload(
  deps: AdminDeps,
  identityInput: JobIdentity,
  input: ApprovalPayloadInput,
): Promise<ApprovalPayloadView> {
  const identity = parseIdentity(identityInput);
  const who = parseInput(readSchema(), input, 'payload read');
  const item = await deps.store.get(identity);
  if (!item) throw new ItemNotFoundError(`no work item ${formatIdentity(identity)}`, { ...identity });
  if (item.state !== 'awaiting_approval') {
    throw new IllegalTransitionError(
      `${formatIdentity(identity)} is ${item.state}: its payload is shown to approvers only while it awaits approval`,
      item,
    );
  }
  const stored = item.payloadRef ? undefined : await deps.store.review.body(deps.payloadsTable, identity);
  const bodyStatus = !stored
    ? 'ref'
    : stored.kind !== 'stored'
      ? stored.kind
      : stored.intact && stored.payloadHash === item.payloadHash
        ? 'verified'
        : 'mismatch';
  const audit = await writeAuditRecord(deps, {
    actor: who.actor,
    ...(who.caller ? { caller: who.caller } : {}),
    action: 'read_payload',
    reason: who.reason ?? 'approval review',
    tenantId: identity.tenantId,
    operationId: identity.operationId,
    counts: { shown: bodyStatus === 'verified' ? 1 : 0 },
  });
  return {
    tenantId: identity.tenantId,
    operationId: identity.operationId,
    jobType: item.jobType,
    state: 'awaiting_approval',
    payloadHash: item.payloadHash,
    body: bodyStatus === 'verified' && stored?.kind === 'stored' ? stored.body : null,
    bodyStatus,
    ...(item.approvalExpiresAt !== undefined ? { approvalExpiresAt: item.approvalExpiresAt } : {}),
    ...(item.approvers !== undefined ? { approvers: item.approvers } : {}),
    auditId: audit.auditId,
  };
}

export { type ApprovalPayloadInput, type ApprovalPayloadView, approvalPayload };
