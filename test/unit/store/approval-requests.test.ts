import { describe, expect, it } from 'vitest';
import { parseIdentity } from '../../../lib/identity.js';
import { approveRecordUpdate } from '../../../lib/store/approvals/approval-records.js';
import { buildApproveUpdate, buildRejectUpdate } from '../../../lib/store/approvals/approval-requests.js';
import type { StoreConnection } from '../../../lib/store/driver/connection.js';
import { approvalGap } from '../../../lib/worker/approval-gate.js';

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
  it('approve: awaiting, the payload hash the approver saw, inside its window, and not the producer when the rule says so', () => {
    const request = buildApproveUpdate(table, identity, hash, { actor: 'ops', reason: 'ok', approverId: 'AROAX' }, 7);
    expect(readable(request)).toBe(
      `attribute_exists(pk) AND state = "awaiting_approval" AND payloadHash = "${hash}" AND approvalExpiresAt >= 7 AND (approvers <> "not-producer" OR (attribute_exists(producerId) AND producerId <> "AROAX"))`,
    );
    expect(request.UpdateExpression).toContain('REMOVE');
    expect(request.ReturnValuesOnConditionCheckFailure).toBe('ALL_OLD');
    expect(String(request.UpdateExpression)).not.toContain('#fence');
  });

  it('approve without an authenticated approver: a not-producer row refuses it', () => {
    const request = buildApproveUpdate(table, identity, hash, { actor: 'ops', reason: 'ok' }, 7);
    expect(readable(request)).toBe(
      `attribute_exists(pk) AND state = "awaiting_approval" AND payloadHash = "${hash}" AND approvalExpiresAt >= 7 AND approvers <> "not-producer"`,
    );
  });

  it('reject: awaiting only, raising the fence', () => {
    const request = buildRejectUpdate(table, identity, { actor: 'ops', reason: 'no' }, 7);
    expect(readable(request)).toBe('attribute_exists(pk) AND state = "awaiting_approval"');
    expect(String(request.UpdateExpression)).toMatch(/#fence = #fence \+ :v\d+/);
  });
});

describe('the approval record: what the worker runs a gated job on, decided by the admin in one conditional write', () => {
  const db = { table, clock: { now: () => 7 }, client: {} } as unknown as StoreConnection;

  it('approve: the record open (or approved by this same actor), that payload hash, inside its window, the approver rule', () => {
    const request = approveRecordUpdate(db, identity, hash, { actor: 'ops', approverId: 'AROAX' }, 7);
    expect(request.Key).toEqual({ pk: expect.stringMatching(/^#approval#\d+$/), sk: 'acme#refund-1' });
    expect(readable(request)).toBe(
      `attribute_exists(pk) AND (attribute_not_exists(decision) OR (decision = "approved" AND actor = "ops")) AND payloadHash = "${hash}" AND expiresAt >= 7 AND (approvers <> "not-producer" OR (attribute_exists(producerId) AND producerId <> "AROAX"))`,
    );
  });

  it.each([
    ['no record', undefined, 'anyone', 'no approval record'],
    ['an open record', { decision: undefined }, 'anyone', 'carries no approval'],
    ['a rejected record', { decision: 'rejected' }, 'anyone', 'carries no approval'],
    ['another hash', { decision: 'approved', payloadHash: 'b'.repeat(64) }, 'anyone', 'another payload hash'],
    ['not-producer, producer unknown', { decision: 'approved', approverId: 'AROAX' }, 'not-producer', 'not known'],
    [
      'not-producer, its own producer',
      { decision: 'approved', approverId: 'AROAX', producerId: 'AROAX' },
      'not-producer',
      'its own producer',
    ],
    [
      'not-producer, another approver',
      { decision: 'approved', approverId: 'AROAY', producerId: 'AROAX' },
      'not-producer',
      undefined,
    ],
    ['anyone, approved', { decision: 'approved' }, 'anyone', undefined],
  ] as const)('the worker runs a gated job on %s: %s', (_name, fields, approvers, gap) => {
    const record = fields && {
      tenantId: 'acme',
      operationId: 'refund-1',
      payloadHash: hash,
      approvers,
      expiresAt: 9,
      openedAt: 1,
      ...fields,
    };
    const found = approvalGap(record as Parameters<typeof approvalGap>[0], hash, approvers);
    if (gap === undefined) expect(found).toBeUndefined();
    else expect(found).toContain(gap);
  });
});
