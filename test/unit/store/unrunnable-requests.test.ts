import { describe, expect, it } from 'vitest';
import { parseIdentity } from '../../../lib/identity.js';
import { buildOperatorUpdate } from '../../../lib/store/operator/operator-requests.js';
import { workItemKey } from '../../../lib/store/table.js';
import {
  buildRefusalNote,
  parkUnrunnableTransition,
  pastCeiling,
  UNRUNNABLE_CEILING,
  UnrunnableCode,
} from '../../../lib/store/unrunnable/unrunnable-requests.js';
import { workItemInState } from '../../support/factories.js';

const NOW = 1_767_225_600_000;
const identity = parseIdentity({ tenantId: 'acme', operationId: 'inv-1' });
const table = { tableName: 'jobs', deadlineShards: 16 };

describe('rows no deployed worker can run (exact DynamoDB input)', () => {
  it('notes a version refusal only on a queued row of that type bound to another version than the refuser runs', () => {
    expect(buildRefusalNote('jobs', { identity, jobType: 'invoice', runsVersion: 2 }, NOW)).toEqual({
      TableName: 'jobs',
      Key: workItemKey(identity),
      UpdateExpression:
        'SET #unrunnableSince = if_not_exists(#unrunnableSince, :v1), ' +
        '#unrunnableRefusals = if_not_exists(#unrunnableRefusals, :v2) + :v3',
      ConditionExpression:
        'attribute_exists(#pk) AND #state = :v4 AND #jobType = :v5 AND attribute_exists(#jobVersion) AND #jobVersion <> :v6',
      ExpressionAttributeNames: {
        '#unrunnableSince': 'unrunnableSince',
        '#unrunnableRefusals': 'unrunnableRefusals',
        '#pk': 'pk',
        '#state': 'state',
        '#jobType': 'jobType',
        '#jobVersion': 'jobVersion',
      },
      ExpressionAttributeValues: { ':v1': NOW, ':v2': 0, ':v3': 1, ':v4': 'queued', ':v5': 'invoice', ':v6': 2 },
      ReturnValues: 'ALL_NEW',
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
  });

  it('notes a job-type refusal on a queued row of that type, whatever its version', () => {
    const request = buildRefusalNote('jobs', { identity, jobType: 'legacy-report' }, NOW);

    expect(request.ConditionExpression).toBe('attribute_exists(#pk) AND #state = :v4 AND #jobType = :v5');
  });

  it('parks at the refusal count once the minimum wait passed, or after the longest wait whatever the count', () => {
    const since = NOW - UNRUNNABLE_CEILING.minWaitMs;
    expect(pastCeiling({ unrunnableSince: since, unrunnableRefusals: UNRUNNABLE_CEILING.refusals }, NOW)).toBe(true);
    expect(pastCeiling({ unrunnableSince: since, unrunnableRefusals: UNRUNNABLE_CEILING.refusals - 1 }, NOW)).toBe(
      false,
    );
    expect(pastCeiling({ unrunnableSince: since + 1, unrunnableRefusals: 100 }, NOW)).toBe(false);
    expect(pastCeiling({ unrunnableSince: NOW - UNRUNNABLE_CEILING.maxWaitMs, unrunnableRefusals: 2 }, NOW)).toBe(true);
  });

  it('parks queued ▶ quarantined on the fence and refusal count it read, off the deadline index, with reason and versions', () => {
    const item = workItemInState({
      identity,
      state: 'queued',
      now: NOW,
      overrides: {
        jobType: 'invoice',
        jobVersion: 1,
        fence: 3,
        unrunnableSince: NOW - 3_600_000,
        unrunnableRefusals: 7,
      },
    });
    const transition = parkUnrunnableTransition(item, { identity, jobType: 'invoice', runsVersion: 2 }, NOW);
    const request = buildOperatorUpdate(table, identity, transition, NOW);

    expect(transition.set).toMatchObject({ errorCode: UnrunnableCode.version, finishedAt: NOW });
    expect(transition.set.errorMessage).toBe(
      "bound to version 1 of invoice; this deployment's workers run version 2 (7 wake-ups over 60 min); deploy a worker of version 1, then retry",
    );
    expect(request.ConditionExpression).toBe('#state = :v10 AND #fence = :v11 AND #unrunnableRefusals = :v12');
    expect(request.ExpressionAttributeValues).toMatchObject({ ':v10': 'queued', ':v11': 3, ':v12': 7 });
    expect(request.UpdateExpression).toContain('REMOVE #leaseOwner, #leaseExpiresAt, #deadlineShard, #deadlineAt');
    expect(request.UpdateExpression).toContain('#unrunnableSince, #unrunnableRefusals');
  });
});
