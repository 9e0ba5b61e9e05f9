import { describe, expect, it } from 'vitest';
import { MAX_MESSAGE_CHARS } from '../../../lib/rules.js';
import { buildOperatorUpdate } from '../../../lib/store/operator/operator-requests.js';
import { cancelTransition, sweepToUnknownTransition } from '../../../lib/store/operator/operator-transitions.js';
import { deadlineShardFor, jobsTableDefinition } from '../../../lib/store/table.js';
import { epochFloor } from '../../../lib/store/work-items/fence-epoch.js';
import {
  buildClaimRequest,
  buildCreateRequest,
  buildFencedUpdate,
  claimability,
} from '../../../lib/store/work-items/requests.js';
import { parseNewWorkItem } from '../../../lib/store/work-items/schemas.js';
import {
  completeTransition,
  failTerminalTransition,
  heartbeatTransition,
  parkTransition,
  retryLaterTransition,
  stepTransition,
} from '../../../lib/store/work-items/transitions.js';
import { claimFromItem, identityOfItem, type WorkItem } from '../../../lib/store/work-items/work-item.js';
import { workItemInState } from '../../support/factories.js';

const table = { tableName: 'jobs', deadlineShards: 8 };
const identity = { tenantId: 'acme', operationId: 'refund-42' };
const key = { pk: 'acme#10', sk: 'op#refund-42' }; // bucket 10 of 16: a hash of the identity
const shard = deadlineShardFor(identity, 8);
const now = 1_767_225_600_000;
const hash = 'a'.repeat(64);
const newItem = parseNewWorkItem({
  identity,
  jobType: 'refund',
  payloadHash: hash,
  payloadRef: 's3://b/k',
  maxAttempts: 3,
});

describe('buildCreateRequest', () => {
  it('starts the row at its fence epoch floor: queued at the floor, claimed one above it', () => {
    const floor = epochFloor(3);
    const queued = buildCreateRequest(table, newItem, now, undefined, undefined, floor);
    const claimed = buildCreateRequest(
      table,
      newItem,
      now,
      { owner: 'w1', claimId: 'c1', leaseMs: 30_000 },
      undefined,
      floor,
    );

    expect(queued.Item).toMatchObject({ state: 'queued', fence: floor, attempts: 0 });
    expect(claimed.Item).toMatchObject({ state: 'claimed', fence: floor + 1, attempts: 1 });
  });

  it('creates the item already claimed with fence 1 and the effect mark when given a lease, only if the key is free', () => {
    const lease = { owner: 'w1', claimId: 'c1', leaseMs: 30_000, targetClass: 'C' as const };
    const request = buildCreateRequest(table, newItem, now, lease);

    expect(request).toEqual({
      TableName: 'jobs',
      Item: {
        pk: 'acme#10',
        sk: 'op#refund-42',
        kind: 'work',
        tenantId: 'acme',
        operationId: 'refund-42',
        jobType: 'refund',
        payloadHash: hash,
        payloadRef: 's3://b/k',
        maxAttempts: 3,
        steps: {},
        createdAt: now,
        updatedAt: now,
        deadlineShard: shard,
        state: 'claimed',
        fence: 1,
        attempts: 1,
        leaseOwner: 'w1',
        claimId: 'c1',
        leaseExpiresAt: now + 30_000,
        claimedAt: now,
        deadlineAt: now + 30_000,
        effectMayHaveHappened: true,
        targetClass: 'C',
        ah: [{ o: 'w1', s: now }],
      },
      ConditionExpression: 'attribute_not_exists(#pk)',
      ExpressionAttributeNames: { '#pk': 'pk' },
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
  });

  it('creates the item queued with fence 0, due at availableAt, with no lease attributes', () => {
    const input = parseNewWorkItem({
      ...newItem,
      payloadRef: undefined,
      payloadInline: true,
      availableAt: now + 5_000,
    });

    const request = buildCreateRequest(table, input, now);

    expect(request.Item).toEqual({
      pk: 'acme#10',
      sk: 'op#refund-42',
      kind: 'work',
      tenantId: 'acme',
      operationId: 'refund-42',
      jobType: 'refund',
      payloadHash: hash,
      payloadInline: true,
      maxAttempts: 3,
      steps: {},
      createdAt: now,
      updatedAt: now,
      deadlineShard: shard,
      state: 'queued',
      fence: 0,
      attempts: 0,
      availableAt: now + 5_000,
      deadlineAt: now + 5_000,
    });
    expect(request.ConditionExpression).toBe('attribute_not_exists(#pk)');
  });

  it('never puts a payload body in the row', () => {
    const request = buildCreateRequest(table, newItem, now);

    expect(Object.keys(request.Item)).not.toContain('payload');
    expect(Object.keys(request.Item)).not.toContain('body');
  });
});

describe('buildClaimRequest', () => {
  it('raises fence and attempts, sets the effect mark and opens an attempt-history entry, only if attempts remain and the item is due or its lease expired', () => {
    const request = buildClaimRequest(table, identity, { owner: 'w2', claimId: 'c2', leaseMs: 30_000 }, now);

    expect(request).toEqual({
      TableName: 'jobs',
      Key: key,
      UpdateExpression:
        'SET #state = :v4, #leaseOwner = :v5, #claimId = :v6, #leaseExpiresAt = :v7, #claimedAt = :v8, ' +
        '#deadlineShard = :v9, #deadlineAt = :v10, #updatedAt = :v11, #effectMayHaveHappened = :v12, ' +
        '#fence = #fence + :v1, ' +
        '#attempts = #attempts + :v1, #ah = list_append(if_not_exists(#ah, :v2), :v3) ' +
        'REMOVE #availableAt, #flowWaitingSince, #errorCode, #errorMessage, #outcomeCode, #result, #unrunnableSince, #unrunnableRefusals',
      ConditionExpression:
        'attribute_exists(#pk) AND #attempts < #maxAttempts AND ' +
        '((#state = :v14 AND #availableAt <= :v13) OR (#state = :v15 AND #leaseExpiresAt < :v13))',
      ExpressionAttributeNames: {
        '#fence': 'fence',
        '#attempts': 'attempts',
        '#ah': 'ah',
        '#state': 'state',
        '#leaseOwner': 'leaseOwner',
        '#claimId': 'claimId',
        '#leaseExpiresAt': 'leaseExpiresAt',
        '#claimedAt': 'claimedAt',
        '#deadlineShard': 'deadlineShard',
        '#deadlineAt': 'deadlineAt',
        '#updatedAt': 'updatedAt',
        '#effectMayHaveHappened': 'effectMayHaveHappened',
        '#availableAt': 'availableAt',
        '#flowWaitingSince': 'flowWaitingSince',
        '#errorCode': 'errorCode',
        '#errorMessage': 'errorMessage',
        '#outcomeCode': 'outcomeCode',
        '#result': 'result',
        '#unrunnableSince': 'unrunnableSince',
        '#unrunnableRefusals': 'unrunnableRefusals',
        '#pk': 'pk',
        '#maxAttempts': 'maxAttempts',
      },
      ExpressionAttributeValues: {
        ':v1': 1,
        ':v2': [],
        ':v3': [{ o: 'w2', s: now }],
        ':v4': 'claimed',
        ':v5': 'w2',
        ':v6': 'c2',
        ':v7': now + 30_000,
        ':v8': now,
        ':v9': shard,
        ':v10': now + 30_000,
        ':v11': now,
        ':v12': true,
        ':v13': now,
        ':v14': 'queued',
        ':v15': 'claimed',
      },
      ReturnValues: 'ALL_OLD',
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
  });

  it('with a job version: claims only a row bound to that version or to none, and binds an unbound row to it', () => {
    const request = buildClaimRequest(
      table,
      identity,
      { owner: 'w2', claimId: 'c2', leaseMs: 30_000, jobVersion: 3 },
      now,
    );
    const values = request.ExpressionAttributeValues ?? {};
    const version = Object.entries(values).find(([, value]) => value === 3)?.[0];

    expect(request.UpdateExpression).toContain(`#jobVersion = if_not_exists(#jobVersion, ${version})`);
    expect(request.ConditionExpression).toMatch(
      new RegExp(`AND \\(attribute_not_exists\\(#jobVersion\\) OR #jobVersion = ${version}\\)$`),
    );
  });

  it('claimability: a row bound to another job version is version_unsupported; an unbound row is claimable', () => {
    const due = workItemInState({ identity, state: 'queued', now, overrides: { availableAt: now - 1 } });

    expect(claimability({ ...due, jobVersion: 2 }, now, 1)).toEqual({
      claimable: false,
      reason: 'version_unsupported',
    });
    expect(claimability({ ...due, jobVersion: 2 }, now, 2)).toEqual({ claimable: true });
    expect(claimability(due, now, 1)).toEqual({ claimable: true });
  });
});

describe('buildFencedUpdate', () => {
  const claimed: WorkItem = workItemInState({ identity, state: 'claimed', now, overrides: { fence: 7 } });
  const claim = claimFromItem(claimed, identityOfItem(claimed), false);

  it('completes under my fence only while claimed, removing the lease and closing the attempt in the history', () => {
    const request = buildFencedUpdate(table, claim, completeTransition({ outcomeCode: 'ok', result: { n: 1 } }, now));

    expect(request).toEqual({
      TableName: 'jobs',
      Key: key,
      UpdateExpression:
        'SET #state = :v1, #outcomeCode = :v2, #result = :v3, #finishedAt = :v4, #updatedAt = :v5, #ah = :v6 ' +
        'REMOVE #leaseOwner, #leaseExpiresAt, #deadlineShard, #deadlineAt, #errorCode, #errorMessage, ' +
        '#unrunnableSince, #unrunnableRefusals',
      ConditionExpression: '#fence = :v7 AND #state = :v8',
      ExpressionAttributeNames: {
        '#state': 'state',
        '#outcomeCode': 'outcomeCode',
        '#result': 'result',
        '#finishedAt': 'finishedAt',
        '#updatedAt': 'updatedAt',
        '#ah': 'ah',
        '#leaseOwner': 'leaseOwner',
        '#leaseExpiresAt': 'leaseExpiresAt',
        '#deadlineShard': 'deadlineShard',
        '#deadlineAt': 'deadlineAt',
        '#errorCode': 'errorCode',
        '#errorMessage': 'errorMessage',
        '#unrunnableSince': 'unrunnableSince',
        '#unrunnableRefusals': 'unrunnableRefusals',
        '#fence': 'fence',
      },
      ExpressionAttributeValues: {
        ':v1': 'succeeded',
        ':v2': 'ok',
        ':v3': { n: 1 },
        ':v4': now,
        ':v5': now,
        ':v6': [{ o: 'factory-worker', s: now, f: 7, e: now, r: 'ok' }],
        ':v7': 7,
        ':v8': 'claimed',
      },
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
  });

  it('stores every failure message capped at MAX_MESSAGE_CHARS, whichever transition records it', () => {
    const failure = { errorCode: 'boom', message: `${'m'.repeat(MAX_MESSAGE_CHARS)}tail` };
    const transitions = [
      failTerminalTransition(claim, failure, now),
      retryLaterTransition(failure, now + 1_000, now),
      parkTransition(claim, 'unknown', failure, now),
      parkTransition(claim, 'quarantined', failure, now),
    ];
    for (const transition of transitions) {
      const values = Object.values(buildFencedUpdate(table, claim, transition).ExpressionAttributeValues ?? {});
      expect(values, transition.name).toContain('m'.repeat(MAX_MESSAGE_CHARS));
      expect(
        values.some((value) => typeof value === 'string' && value.endsWith('tail')),
        transition.name,
      ).toBe(false);
    }
  });

  it('omits undefined outcome fields instead of writing NULLs, and removes what an earlier attempt left there', () => {
    const request = buildFencedUpdate(table, claim, completeTransition({ outcomeCode: 'ok' }, now));

    const [setClause, removeClause] = (request.UpdateExpression ?? '').split(' REMOVE ');
    expect(setClause).not.toContain('#result');
    expect(removeClause).toContain('#result');
    expect(Object.values(request.ExpressionAttributeValues ?? {})).not.toContain(null);
  });

  it('heartbeat moves only the lease, never an indexed attribute, under the fence, only from my own unexpired lease', () => {
    const mine = claim.leaseExpiresAt;
    const request = buildFencedUpdate(table, claim, heartbeatTransition(mine, now + 60_000, now));

    expect(request.UpdateExpression).toBe('SET #leaseExpiresAt = :v1, #updatedAt = :v2');
    expect(request.ConditionExpression).toBe(
      '#fence = :v3 AND #state = :v4 AND #leaseExpiresAt = :v5 AND #leaseExpiresAt > :v6',
    );
    expect(request.ExpressionAttributeValues).toEqual({
      ':v1': now + 60_000,
      ':v2': now,
      ':v3': 7,
      ':v4': 'claimed',
      ':v5': mine,
      ':v6': now,
    });
    const indexed = jobsTableDefinition('jobs').GlobalSecondaryIndexes?.flatMap((index) => [
      ...(index.KeySchema ?? []).map((key) => key.AttributeName),
      ...(index.Projection?.NonKeyAttributes ?? []),
    ]);
    const written = (request.UpdateExpression?.match(/#\w+(?= =)/g) ?? []).map(
      (placeholder) => request.ExpressionAttributeNames?.[placeholder],
    );
    expect(written).toEqual(['leaseExpiresAt', 'updatedAt']);
    for (const attribute of written) expect(indexed).not.toContain(attribute);
  });

  it('records a step as one map key, even when its name contains a dot', () => {
    const request = buildFencedUpdate(table, claim, stepTransition('charge.card', { id: 'ch_1' }, claim, now));

    expect(request.UpdateExpression).toMatch(/^SET #updatedAt = :v\d+, #steps\.#charge_card = :v\d+$/);
    expect(request.ExpressionAttributeNames).toMatchObject({ '#steps': 'steps', '#charge_card': 'charge.card' });
    const stepValue = Object.values(request.ExpressionAttributeValues ?? {}).find(
      (value) => typeof value === 'object' && value !== null && 'fence' in value,
    );
    expect(stepValue).toEqual({ fence: 7, at: now, result: { id: 'ch_1' } });
    expect(request.ConditionExpression).toMatch(/^#fence = :v\d+ AND #state = :v\d+/);
  });
});

describe('buildOperatorUpdate', () => {
  const claimed: WorkItem = workItemInState({ identity, state: 'claimed', now, overrides: { fence: 4 } });

  it('cancels conditional on the observed state and fence, raises the fence and appends an audit entry', () => {
    const request = buildOperatorUpdate(
      table,
      identity,
      cancelTransition(claimed, { actor: 'alice', reason: 'duplicate' }, now),
      now,
    );

    expect(request).toEqual({
      TableName: 'jobs',
      Key: key,
      UpdateExpression:
        'SET #finishedAt = :v4, #ah = :v5, #state = :v6, #updatedAt = :v7, #fence = #fence + :v1, ' +
        '#audit = list_append(if_not_exists(#audit, :v2), :v3) ' +
        'REMOVE #leaseOwner, #leaseExpiresAt, #deadlineShard, #deadlineAt, #parkedState, #parkedTenantState, #parkedAt, ' +
        '#errorCode, #errorMessage, #outcomeCode, #result, #unrunnableSince, #unrunnableRefusals',
      ConditionExpression: '#state = :v8 AND #fence = :v9',
      ExpressionAttributeNames: {
        '#fence': 'fence',
        '#audit': 'audit',
        '#finishedAt': 'finishedAt',
        '#ah': 'ah',
        '#state': 'state',
        '#updatedAt': 'updatedAt',
        '#leaseOwner': 'leaseOwner',
        '#leaseExpiresAt': 'leaseExpiresAt',
        '#deadlineShard': 'deadlineShard',
        '#deadlineAt': 'deadlineAt',
        '#parkedState': 'parkedState',
        '#parkedTenantState': 'parkedTenantState',
        '#parkedAt': 'parkedAt',
        '#errorCode': 'errorCode',
        '#errorMessage': 'errorMessage',
        '#outcomeCode': 'outcomeCode',
        '#result': 'result',
        '#unrunnableSince': 'unrunnableSince',
        '#unrunnableRefusals': 'unrunnableRefusals',
      },
      ExpressionAttributeValues: {
        ':v1': 1,
        ':v2': [],
        ':v3': [
          {
            actor: 'alice',
            reason: 'duplicate',
            action: 'cancel',
            at: now,
            from: 'claimed',
            to: 'cancelled',
            fence: 5,
          },
        ],
        ':v4': now,
        ':v5': [{ o: 'factory-worker', s: now, f: 4, e: now, r: 'cancelled' }],
        ':v6': 'cancelled',
        ':v7': now,
        ':v8': 'claimed',
        ':v9': 4,
      },
      ReturnValues: 'ALL_NEW',
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
  });

  it('appends the extra condition of the sweeper after state and fence', () => {
    const request = buildOperatorUpdate(table, identity, sweepToUnknownTransition(claimed, now), now);

    expect(request.ConditionExpression).toBe(
      '#state = :v11 AND #fence = :v12 AND #leaseExpiresAt < :v13 AND #attempts >= #maxAttempts',
    );
    expect(request.ExpressionAttributeValues).toMatchObject({ ':v11': 'claimed', ':v12': 4, ':v13': now });
    expect(request.UpdateExpression).toContain('#fence = #fence + :v1');
    expect(request.UpdateExpression).not.toContain('#audit');
  });

  it('resets the attempt budget only when asked', () => {
    const request = buildOperatorUpdate(
      table,
      identity,
      {
        expected: { state: 'unknown', fence: 4 },
        to: 'queued',
        set: { availableAt: now },
        resetAttempts: true,
      },
      now,
    );

    expect(request.UpdateExpression).toBe(
      'SET #availableAt = :v2, #state = :v3, #updatedAt = :v4, #attempts = :v5, #fence = #fence + :v1 ' +
        'REMOVE #errorCode, #errorMessage, #outcomeCode, #result, #unrunnableSince, #unrunnableRefusals',
    );
    expect(request.ExpressionAttributeValues).toMatchObject({ ':v3': 'queued', ':v5': 0 });
  });
});
