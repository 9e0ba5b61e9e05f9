import { describe, expect, it } from 'vitest';
import { parseIdentity } from '../../../lib/identity.js';
import { buildApproveUpdate, buildRejectUpdate } from '../../../lib/store/approvals/approval-requests.js';

const table = { tableName: 'jobs', deadlineShards: 32 };
const identity = parseIdentity({ tenantId: 'acme', operationId: 'refund-1' });
const hash = 'a'.repeat(64);

/** The condition with placeholders replaced by the names and values they stand for. */
function readable(request: ReturnType<typeof buildApproveUpdate>): string {
  let text = String(request.ConditionExpression);
  for (const [name, value] of Object.entries(request.ExpressionAttributeNames ?? {}))
    text = text.replaceAll(new RegExp(`${name}\\b`, 'g'), value);
  for (const [name, value] of Object.entries(request.ExpressionAttributeValues ?? {}))
    text = text.replaceAll(new RegExp(`${name}\\b`, 'g'), JSON.stringify(value));
  return text;
}

describe('approval requests: one conditional write each, everything they depend on inside the condition', () => {
  it('approve: awaiting, the payload hash the approver saw, and not the producer when the rule says so', () => {
    const request = buildApproveUpdate(table, identity, hash, { actor: 'ops', reason: 'ok', approverId: 'AROAX' }, 7);
    expect(readable(request)).toBe(
      `attribute_exists(pk) AND state = "awaiting_approval" AND payloadHash = "${hash}" AND (approvers <> "not-producer" OR (attribute_exists(producerId) AND producerId <> "AROAX"))`,
    );
    expect(request.UpdateExpression).toContain('REMOVE');
    expect(request.ReturnValuesOnConditionCheckFailure).toBe('ALL_OLD');
    expect(String(request.UpdateExpression)).not.toContain('#fence');
  });

  it('approve without an authenticated approver: a not-producer row refuses it', () => {
    const request = buildApproveUpdate(table, identity, hash, { actor: 'ops', reason: 'ok' }, 7);
    expect(readable(request)).toBe(
      `attribute_exists(pk) AND state = "awaiting_approval" AND payloadHash = "${hash}" AND approvers <> "not-producer"`,
    );
  });

  it('reject: awaiting only, raising the fence', () => {
    const request = buildRejectUpdate(table, identity, { actor: 'ops', reason: 'no' }, 7);
    expect(readable(request)).toBe('attribute_exists(pk) AND state = "awaiting_approval"');
    expect(String(request.UpdateExpression)).toMatch(/#fence = #fence \+ :v\d+/);
  });
});
