import { Aws } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import {
  APPROVAL_PARTITION_PREFIX,
  AUDIT_PARTITION,
  JobsIndex,
  SETTINGS_PARTITION,
  SLOT_PARTITION_PREFIX,
  SWEEPER_PARTITION,
} from '../../lib/store/index.js';
import { indexArn } from './tables.js';
import { leadingKeyPattern, type TenantScope, tenantConditions } from './tenant-access.js';

/** The resources a leasefence function may be granted access to. */
interface LeasefenceResources {
  jobsTable: dynamodb.ITable;
  payloadsTable: dynamodb.ITable;
  queue: sqs.IQueue;
  deadLetterQueue: sqs.IQueue;
  /** The customer-managed key of the tables and queues, when the construct was given one. */
  encryptionKey?: kms.IKey;
  /** The key of the identifier hashes in logs (worker and admin read it). */
  identifierKeySecret?: secretsmanager.ISecret;
}

/** Item-level actions a worker may use on a record table it fences (class A transactions, class B writes). */
const WORKER_RECORD_ACTIONS = [
  'dynamodb:GetItem',
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:ConditionCheckItem',
] as const;

/** What DynamoDB and SQS do with a customer-managed key on a caller's behalf (read, write, send, receive). */
const KEY_USE_ACTIONS = ['kms:Decrypt', 'kms:DescribeKey', 'kms:Encrypt', 'kms:GenerateDataKey'] as const;

function statement(sid: string, actions: readonly string[], resources: string[]): iam.PolicyStatement {
  return new iam.PolicyStatement({ sid, effect: iam.Effect.ALLOW, actions: [...actions], resources });
}

/**
 * An explicit Deny of item writes in partitions of the jobs table that are not this role's to write: it wins
 * over every Allow the role holds or is given later (IAM grants add up, a Deny does not give way). A write
 * always names one partition key, so `ForAnyValue` on dynamodb:LeadingKeys sees it.
 */
function denyWritesIn(
  sid: string,
  actions: readonly string[],
  resources: LeasefenceResources,
  partitions: readonly string[],
): iam.PolicyStatement {
  return new iam.PolicyStatement({
    sid,
    effect: iam.Effect.DENY,
    actions: [...actions],
    resources: [resources.jobsTable.tableArn],
    conditions: { 'ForAnyValue:StringEquals': { 'dynamodb:LeadingKeys': [...partitions] } },
  });
}

/** Every approval record's partition (`#approval#0` … ), as an IAM pattern. */
const APPROVAL_PARTITIONS = `${APPROVAL_PARTITION_PREFIX}*`;

/** The attributes only a decision writes on an approval record (lib/store/approvals/approval-records.ts). */
const APPROVAL_DECISION_ATTRIBUTES = ['decision', 'decidedAt', 'actor', 'approverId'] as const;

/**
 * Explicit Denies that keep a role from deciding an approval: no UpdateItem in the approval partitions, and (with
 * `opens`, the worker, which opens records) no PutItem there that carries a decision's attributes (dynamodb:Attributes
 * lists a PutItem's attribute names). Only the admin role decides.
 */
function denyApprovalDecisions(resources: LeasefenceResources, opens: boolean): iam.PolicyStatement[] {
  const inApprovals = { 'ForAnyValue:StringLike': { 'dynamodb:LeadingKeys': [APPROVAL_PARTITIONS] } };
  const deny = (sid: string, action: string, extra: Record<string, unknown> = {}) =>
    new iam.PolicyStatement({
      sid,
      effect: iam.Effect.DENY,
      actions: [action],
      resources: [resources.jobsTable.tableArn],
      conditions: { ...inApprovals, ...extra },
    });
  const update = deny('NoApprovalDecisions', 'dynamodb:UpdateItem');
  if (!opens) return [update];
  const decided = { 'ForAnyValue:StringEquals': { 'dynamodb:Attributes': [...APPROVAL_DECISION_ATTRIBUTES] } };
  return [update, deny('OpenApprovalRecordsUndecided', 'dynamodb:PutItem', decided)];
}

/** Reading the identifier key secret (GetSecretValue on that secret only), when there is one. */
function identifierKeyStatements(resources: LeasefenceResources): iam.PolicyStatement[] {
  const secret = resources.identifierKeySecret;
  return secret ? [statement('ReadIdentifierKey', ['secretsmanager:GetSecretValue'], [secret.secretArn])] : [];
}

/** The services a function with the identifier key uses the customer-managed key through. */
const WITH_SECRET = ['dynamodb', 'sqs', 'secretsmanager'] as const;

/**
 * Use of the customer-managed key, only through DynamoDB and SQS (kms:ViaService): a role can decrypt what
 * those services hand it, never call KMS directly on the key. Nothing when the resources use AWS-managed keys.
 */
function keyStatements(
  resources: LeasefenceResources,
  services: ReadonlyArray<'dynamodb' | 'sqs' | 'secretsmanager'> = ['dynamodb', 'sqs'],
): iam.PolicyStatement[] {
  if (!resources.encryptionKey) return [];
  return [
    new iam.PolicyStatement({
      sid: 'UseEncryptionKeyViaDynamoDbAndSqs',
      actions: [...KEY_USE_ACTIONS],
      resources: [resources.encryptionKey.keyArn],
      conditions: {
        'ForAnyValue:StringEquals': {
          'kms:ViaService': services.map((service) => `${service}.${Aws.REGION}.amazonaws.com`),
        },
      },
    }),
  ];
}

/**
 * Worker: claim/heartbeat/complete and quarantine records on the jobs table (DeleteItem and Query only in the
 * concurrency-slot partitions `#slot#…`; denied any write in `#audit` and `#sweeper`), read payload bodies and write successors' bodies, consume the jobs queue
 * and send to it (a retry's own delayed wake-up, successors' wake-ups; SendMessage on that queue only). It never
 * touches the DLQ.
 */
function workerStatements(resources: LeasefenceResources): iam.PolicyStatement[] {
  return [
    // Store methods: WorkItemStore.enqueue and recordQuarantine (PutItem); claim, heartbeat, complete, failTerminal,
    // failRetryable, parkUnknown, quarantine, recordStep (UpdateItem); commitFencedTransaction (the work item's
    // Update inside TransactWriteItems); get and every conditional write's read-back (GetItem).
    statement('WorkItems', WORKER_RECORD_ACTIONS, [resources.jobsTable.tableArn]),
    // The worker runs user job code: it may never touch the audit log, the sweeper's cursor or the fence epoch
    // (it reads the epoch, GetItem, when it creates a row; only raise-fences writes it).
    denyWritesIn('NoAuditOrSweeperWrites', ['dynamodb:PutItem', 'dynamodb:UpdateItem'], resources, [
      AUDIT_PARTITION,
      SWEEPER_PARTITION,
      SETTINGS_PARTITION,
    ]),
    // It opens approval records (store.approvals.records.open) and reads them before a gated job runs; it never
    // decides one (the admin does).
    ...denyApprovalDecisions(resources, true),
    // Store methods: store.slots (flow-control/slots.ts): a slot's release and a waiter's removal (DeleteItem), the
    // read that picks a free slot and the one that finds the oldest waiter (Query), only in the slot partitions.
    new iam.PolicyStatement({
      sid: 'ConcurrencySlots',
      effect: iam.Effect.ALLOW,
      actions: ['dynamodb:DeleteItem', 'dynamodb:Query'],
      resources: [resources.jobsTable.tableArn],
      conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${SLOT_PARTITION_PREFIX}*`] } },
    }),
    // Store methods: PayloadStore.get; PayloadStore.write and putRequest (a successor's body, alone or inside the
    // completion's TransactWriteItems); PayloadStore.keepUntil (a gated job's body outlives its approval window).
    statement(
      'ReadPayloadsWriteSuccessorBodies',
      ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
      [resources.payloadsTable.tableArn],
    ),
    // No store method: the SQS event source's queue.
    statement(
      'ConsumeJobsQueue',
      ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:ChangeMessageVisibility', 'sqs:GetQueueAttributes'],
      [resources.queue.queueArn],
    ),
    // No store method: a retry's own wake-up (messaging/retry-wake.ts) and successors' wake-ups after their rows
    // committed (messaging/wake.ts), on the queue the worker consumes; never the DLQ.
    statement('WakeJobs', ['sqs:SendMessage'], [resources.queue.queueArn]),
    ...identifierKeyStatements(resources),
    ...keyStatements(resources, resources.identifierKeySecret ? WITH_SECRET : undefined),
  ];
}

/**
 * Sweeper: Query the deadline index (expired leases, due retries, lost wake-ups) and the parked-by-state
 * index (age of the oldest unknown item), conditional updates of work items and its cursor (denied in `#audit`),
 * re-signal on the jobs queue. It has no access to the payloads table and no DeleteItem/PutItem.
 */
function sweeperStatements(resources: LeasefenceResources): iam.PolicyStatement[] {
  return [
    // Store methods: store.deadlines.duePage (byDeadline), store.parked.oldest (parkedByState).
    statement(
      'QueryDeadlineAndParkedIndexes',
      ['dynamodb:Query'],
      [
        indexArn(resources.jobsTable, JobsIndex.byDeadline.name),
        indexArn(resources.jobsTable, JobsIndex.parkedByState.name),
      ],
    ),
    // Store methods: WorkItemStore.applyOperator (sweep to unknown), store.deadlines.resignal and .advance,
    // store.maintenance.saveSweepCursor (UpdateItem); store.maintenance.loadSweepCursor and every conditional
    // write's read-back (GetItem).
    statement('SweepWorkItems', ['dynamodb:GetItem', 'dynamodb:UpdateItem'], [resources.jobsTable.tableArn]),
    denyWritesIn('NoAuditUpdates', ['dynamodb:UpdateItem'], resources, [AUDIT_PARTITION, SETTINGS_PARTITION]),
    ...denyApprovalDecisions(resources, false),
    // No store method: wake-ups (messaging/wake.ts).
    statement('ResignalJobs', ['sqs:SendMessage'], [resources.queue.queueArn]),
    ...keyStatements(resources),
  ];
}

/**
 * Admin: list and count items (the three indexes; a tenant's items and the audit log by base-table Query),
 * show/resolve/retry/cancel work items (Get/Update only, denied in `#audit` and `#sweeper`), write audit records
 * (PutItem confined to the audit partition by dynamodb:LeadingKeys, so it can never overwrite a work row), erase payload
 * bodies (UpdateItem: body ▶ tombstone), redrive the DLQ (receive + delete there, send to the jobs queue only),
 * raise every fence after a restore (base-table Scan).
 */
function adminStatements(resources: LeasefenceResources): iam.PolicyStatement[] {
  return [
    // Tenant listings in any state and the audit log are Queries on the table (never a Scan); parked and active
    // listings and counts read the three sparse indexes. The admin already reads any work item by key.
    // Store methods: store.tenants.page and .tally, store.audit.page.
    statement('QueryJobsTable', ['dynamodb:Query'], [resources.jobsTable.tableArn]),
    // Store methods: store.audit.put.
    new iam.PolicyStatement({
      sid: 'WriteAuditRecords',
      actions: ['dynamodb:PutItem'],
      resources: [resources.jobsTable.tableArn],
      conditions: { 'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': [AUDIT_PARTITION] } },
    }),
    // Store methods: store.parked.page, .count and .oldest; store.deadlines.activePage, .count and
    // .countExpiredClaims; store.maintenance.probe.
    statement(
      'QueryJobIndexes',
      ['dynamodb:Query'],
      [
        indexArn(resources.jobsTable, JobsIndex.parkedByState.name),
        indexArn(resources.jobsTable, JobsIndex.parkedByTenant.name),
        indexArn(resources.jobsTable, JobsIndex.byDeadline.name),
      ],
    ),
    // Store methods: WorkItemStore.get, operate (cancel, resolve, retry) and applyOperator (raise fences),
    // store.approvals.approve and .reject (the row, and the approval record's decision: the admin is the only role
    // that may update an approval record), and every conditional write's read-back (GetItem).
    statement('OperateWorkItems', ['dynamodb:GetItem', 'dynamodb:UpdateItem'], [resources.jobsTable.tableArn]),
    // Audit records are written once (PutItem, attribute_not_exists) and never updated; the cursor is the sweeper's.
    denyWritesIn('NoAuditOrSweeperUpdates', ['dynamodb:UpdateItem'], resources, [AUDIT_PARTITION, SWEEPER_PARTITION]),
    // raise-fences after a restore walks every work item: a recovery tool, never a hot path.
    // Store methods: store.maintenance.scanWorkItems.
    statement('RaiseFencesAfterRestore', ['dynamodb:Scan'], [resources.jobsTable.tableArn]),
    // Store methods: store.maintenance.eraseTenantData (payload bodies; the work rows' text under OperateWorkItems).
    statement('ErasePayloads', ['dynamodb:Query', 'dynamodb:UpdateItem'], [resources.payloadsTable.tableArn]),
    // No store method: the DLQ and the jobs queue (admin/redrive.ts, admin/counts.ts deadLetterDepth; erasure's DLQ
    // pass, admin/erase-dead-letters.ts, deletes the erased scope's messages and makes the others visible again).
    statement(
      'DrainDeadLetterQueue',
      ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:ChangeMessageVisibility', 'sqs:GetQueueAttributes'],
      [resources.deadLetterQueue.queueArn],
    ),
    statement('RedriveToJobsQueue', ['sqs:SendMessage'], [resources.queue.queueArn]),
    ...identifierKeyStatements(resources),
    ...keyStatements(resources, resources.identifierKeySecret ? WITH_SECRET : undefined),
  ];
}

/** Adds every statement to the role's policy. */
function grantAll(role: iam.IRole, statements: iam.PolicyStatement[]): void {
  for (const entry of statements) role.addToPrincipalPolicy(entry);
}

/**
 * Statement letting a worker fence writes on the user's own record tables (never DeleteItem). No store method:
 * lib/fenced/ (FencedRecords, and the business items of FencedTransactions) on the job context's client.
 */
function workerRecordStatement(tables: dynamodb.ITable[]): iam.PolicyStatement {
  return new iam.PolicyStatement({
    effect: iam.Effect.ALLOW,
    actions: [...WORKER_RECORD_ACTIONS],
    resources: tables.map((table) => table.tableArn),
  });
}

/**
 * The admin invoke guard: Deny lambda:InvokeFunction on the admin function (and its versions and aliases) unless
 * the call came through its Function URL. The handler trusts the event's requestContext (who acted, audited), and
 * only the URL fills it in honestly: a principal with plain InvokeFunction (a deploy role, a broad `lambda:*`
 * policy) could otherwise send a hand-made event and act as anyone. `lambda:InvokedViaFunctionUrl` is absent on a
 * direct Invoke, so `BoolIfExists … false` denies that too. A Deny in an identity policy, a permissions boundary or
 * an SCP outlasts every Allow.
 */
function adminInvokeGuardStatement(admin: lambda.IFunction): iam.PolicyStatement {
  return new iam.PolicyStatement({
    sid: 'AdminOnlyThroughFunctionUrl',
    effect: iam.Effect.DENY,
    actions: ['lambda:InvokeFunction'],
    resources: [admin.functionArn, `${admin.functionArn}:*`],
    conditions: { BoolIfExists: { 'lambda:InvokedViaFunctionUrl': 'false' } },
  });
}

/** A partition key that is no global partition's (`#audit`, `#sweeper`, `#quarantine#…` all start with `#`). */
const WORK_ROW_PARTITIONS = { 'ForAllValues:StringNotLike': { 'dynamodb:LeadingKeys': ['#*'] } } as const;

/**
 * Statements a producer needs: store inline payload bodies, write a delayed job's row first (reading the fence epoch
 * row and, for a replay's answer, its own rows), send wake-up messages.
 * A tenant-scoped producer's PutItems carry the tenant's LeadingKeys conditions (tenantConditions): it stores bodies
 * and rows under its own keys only, never another tenant's. A trusted producer's row PutItem is kept out of the
 * global partitions (no tenant key starts with `#`). IAM cannot require the store's `attribute_not_exists`
 * condition on that PutItem (see infra/README.md, Tenancy). SendMessage cannot be confined to a tenant by IAM:
 * the worker checks the sender instead.
 */
function producerStatements(resources: LeasefenceResources, scope?: TenantScope): iam.PolicyStatement[] {
  const tenant = scope ? tenantConditions(scope) : undefined;
  return [
    // Store methods: PayloadStore.put.
    new iam.PolicyStatement({
      sid: 'StorePayloads',
      actions: ['dynamodb:PutItem'],
      resources: [resources.payloadsTable.tableArn],
      ...(tenant ? { conditions: tenant } : {}),
    }),
    // Store methods: WorkItemStore.enqueue (a delayed send writes its queued row first, messaging/delayed-job.ts).
    new iam.PolicyStatement({
      sid: 'CreateDelayedJobRows',
      actions: ['dynamodb:PutItem'],
      resources: [resources.jobsTable.tableArn],
      conditions: tenant ?? WORK_ROW_PARTITIONS,
    }),
    // Store methods: WorkItemStore.get (a delayed or confirm-first send's replay answer: the stored state).
    new iam.PolicyStatement({
      sid: 'ReadOwnJobRows',
      actions: ['dynamodb:GetItem'],
      resources: [resources.jobsTable.tableArn],
      conditions: tenant ?? WORK_ROW_PARTITIONS,
    }),
    // Store methods: FenceEpochs.read (a row written first starts in the deployment's current fence epoch).
    new iam.PolicyStatement({
      sid: 'ReadFenceEpoch',
      actions: ['dynamodb:GetItem'],
      resources: [resources.jobsTable.tableArn],
      conditions: { 'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': [SETTINGS_PARTITION] } },
    }),
    // No store method: the wake-up message (messaging/producer.ts).
    new iam.PolicyStatement({ sid: 'SendJobs', actions: ['sqs:SendMessage'], resources: [resources.queue.queueArn] }),
    ...keyStatements(resources),
  ];
}

/**
 * The schedule tick function: a producer confined to the schedules' own tenants (dynamodb:LeadingKeys on every
 * item action), which also reads its occurrences' rows (replay answers, the missed-tick check) and the fence
 * epoch row (a new row starts in the current epoch). No Query, no Scan, no UpdateItem, no DeleteItem; the
 * payloads table is written only (PutItem), never read.
 */
function scheduleTickStatements(resources: LeasefenceResources, tenantIds: readonly string[]): iam.PolicyStatement[] {
  const tenantKeys = [...new Set(tenantIds)].map((tenantId) => leadingKeyPattern({ tenantId }));
  const confined = (keys: readonly string[]) => ({ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [...keys] } });
  return [
    // Store methods: PayloadStore.write (the occurrence's body).
    new iam.PolicyStatement({
      sid: 'StoreOccurrencePayloads',
      actions: ['dynamodb:PutItem'],
      resources: [resources.payloadsTable.tableArn],
      conditions: confined(tenantKeys),
    }),
    // Store methods: WorkItemStore.enqueue (the occurrence's row, written first, messaging/delayed-job.ts).
    new iam.PolicyStatement({
      sid: 'CreateOccurrenceRows',
      actions: ['dynamodb:PutItem'],
      resources: [resources.jobsTable.tableArn],
      conditions: confined(tenantKeys),
    }),
    // Store methods: WorkItemStore.get (past ticks' rows, a replay's read-back) and FenceEpochs.read.
    new iam.PolicyStatement({
      sid: 'ReadOccurrenceRowsAndFenceEpoch',
      actions: ['dynamodb:GetItem'],
      resources: [resources.jobsTable.tableArn],
      conditions: confined([...tenantKeys, SETTINGS_PARTITION]),
    }),
    // No store method: the occurrence's wake-up (messaging/delayed-job.ts).
    statement('WakeOccurrences', ['sqs:SendMessage'], [resources.queue.queueArn]),
    ...keyStatements(resources),
  ];
}

export {
  APPROVAL_DECISION_ATTRIBUTES,
  adminInvokeGuardStatement,
  adminStatements,
  grantAll,
  KEY_USE_ACTIONS,
  keyStatements,
  type LeasefenceResources,
  producerStatements,
  scheduleTickStatements,
  sweeperStatements,
  WORK_ROW_PARTITIONS,
  WORKER_RECORD_ACTIONS,
  workerRecordStatement,
  workerStatements,
};
