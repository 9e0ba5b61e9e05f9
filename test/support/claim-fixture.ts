import { workItemKey } from '../../lib/store/table.js';
import { type Claim, claimFromItem, identityOfItem, type WorkItem } from '../../lib/store/work-items/work-item.js';

/** A claimed work item in memory (unit tests of request builders need a Claim without a table). */
function claimedItem(overrides: Partial<WorkItem> = {}): WorkItem {
  return {
    ...workItemKey({ tenantId: 't1', operationId: 'settle-m_4471' }),
    kind: 'work',
    tenantId: 't1',
    operationId: 'settle-m_4471',
    jobType: 'settlement',
    payloadHash: 'a'.repeat(64),
    payloadRef: 'ref-1',
    state: 'claimed',
    fence: 3,
    attempts: 1,
    maxAttempts: 3,
    leaseOwner: 'worker-a',
    claimId: 'claim-a',
    leaseExpiresAt: 1_000,
    steps: {},
    createdAt: 0,
    updatedAt: 0,
    ...overrides,
  };
}

/** The Claim such an item represents. */
function claimFixture(overrides: Partial<WorkItem> = {}): Claim {
  const item = claimedItem(overrides);
  return claimFromItem(item, identityOfItem(item), false);
}

export { claimedItem, claimFixture };
