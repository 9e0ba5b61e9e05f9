import * as z from 'zod/mini';
import { type ApprovalGate, approvalGateFor } from '../approval-policy.js';
import type { AnyJobDefinition } from '../job-definition.js';
import type { LoadedPayload } from './load-payload.js';

/**
 * The approval gate of a first message's new row: asked of the job type's policy with the payload as the job's own
 * schema parses it (the body verified before the row is created). No policy, no verified body, or a body failing the
 * schema ▶ undefined: such a row is claimed and quarantined before anything runs, so it needs no gate to stay unrun.
 */
function firstMessageGate(
  definition: AnyJobDefinition,
  verified: LoadedPayload | undefined,
  now: number,
  senderId: string | undefined,
): ApprovalGate | undefined {
  if (definition.approval === undefined || verified?.ok !== true) return undefined;
  const parsed = z.safeParse(definition.payload, verified.body);
  if (!parsed.success) return undefined;
  return approvalGateFor(definition.approval, parsed.data, now, senderId);
}

export { firstMessageGate };
