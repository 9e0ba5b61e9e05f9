import * as z from 'zod';
import { type ApprovalPayloadView, approvalPayload } from '../../../lib/admin/approval-payload.js';
import { type ItemDetail, showItem } from '../../../lib/admin/show.js';
import { ItemNotFoundError } from '../../../lib/errors.js';
import { formatIdentity, type JobIdentity } from '../../../lib/identity.js';
import type { AttemptRecord, AuditEntry } from '../../../lib/store/index.js';
import { type CommandSpec, parseCommandLine } from '../args.js';
import { type CliCommand, withTargetAuditedIf } from '../command.js';
import { IDENTIFIER_KEY_OPTIONS, identifierKeyShape } from '../identifier-key.js';
import { cell, formatPairs, formatTable, type Io, printJson, relativeTime, shortDuration } from '../output.js';
import { quarantinedMessagesFor } from '../quarantined-messages.js';
import { commonShape, identityShape, TARGET_OPTIONS, targetShape } from '../schemas.js';
import { COMMAND_SUMMARIES } from '../summaries.js';
import type { CliTarget } from '../target.js';
import { subject } from '../views.js';

/** Positionals shared by the commands that act on one item. */
const ITEM_ARGUMENTS = [
  { name: 'tenant', description: 'tenant id (or tenant/operation as one argument)' },
  { name: 'operation', description: 'operation id' },
] as const;

const spec: CommandSpec = {
  name: 'show',
  summary: COMMAND_SUMMARIES.show,
  positionals: ITEM_ARGUMENTS,
  identityArgument: true,
  options: {
    payload: {
      type: 'boolean',
      description:
        'for a job awaiting approval: also show the payload it binds (the body, its hash, the expiry); the read is audited (read_payload)',
    },
    ...TARGET_OPTIONS,
    ...IDENTIFIER_KEY_OPTIONS,
  },
  examples: [
    'leasefence show m_4471 refund-r_815',
    'leasefence show m_4471/refund-r_815 --json',
    'leasefence show m_4471/refund-r_900 --payload',
  ],
};

const schema = z.strictObject({
  ...commonShape,
  ...targetShape,
  ...identifierKeyShape,
  ...identityShape,
  payload: z.boolean().optional(),
});

/** The attempt history (last claims): fence, owner, start, how long, outcome or error code. */
function attemptsTable(item: ItemDetail, now: number): string {
  const history = (item.ah ?? []) as AttemptRecord[];
  return formatTable(
    ['FENCE', 'WORKER', 'STARTED', 'TOOK', 'OUTCOME'],
    history.map((entry, index) => [
      cell(entry.f ?? (entry.r === undefined && index === history.length - 1 ? item.fence : undefined)),
      entry.o,
      relativeTime(entry.s, now),
      entry.e !== undefined ? shortDuration(entry.e - entry.s) : '-',
      entry.r ?? (index === history.length - 1 ? 'running' : '-'),
    ]),
  );
}

/** What an approver reads before deciding: the body (when it verifies against the hash), the hash, the expiry. */
function approvalPayloadText(view: ApprovalPayloadView, now: number): string {
  const id = `${view.tenantId}/${view.operationId}`;
  const why: Record<ApprovalPayloadView['bodyStatus'], string> = {
    verified: 'hashes to the payload hash: this is what an approval approves',
    ref: 'kept by the producer (a payload ref): read it where the producer keeps it, and check its hash',
    erased: 'erased: nothing to review (reject it, or let it expire)',
    absent: 'not stored yet: nothing to review until it is',
    mismatch: 'does NOT hash to the payload hash: do not approve (reject it)',
  };
  const body =
    view.bodyStatus === 'verified' ? JSON.stringify(view.body, null, 2).replace(/^/gm, '    ') : '    (not shown)';
  return [
    `payload awaiting approval (this read is audited: read_payload, audit id ${view.auditId})`,
    formatPairs([
      ['hash', `sha-256 ${view.payloadHash}`],
      ['body', why[view.bodyStatus]],
      [
        'expires',
        view.approvalExpiresAt !== undefined
          ? `${relativeTime(view.approvalExpiresAt, now)} (${new Date(view.approvalExpiresAt).toISOString()}); then the sweeper cancels it`
          : '-',
      ],
      ['approvers', cell(view.approvers)],
    ]).replace(/^/gm, '  '),
    body,
    `approve: leasefence approve ${id} --payload-hash ${view.payloadHash} --reason '…'`,
    `reject:  leasefence reject ${id} --reason '…'`,
  ].join('\n');
}

/** The successors a completion enqueued, as stored (operation ids of the same tenant), or '-'. */
function successorList(successors: unknown): string {
  return Array.isArray(successors) && successors.length > 0 ? successors.map(cell).join(', ') : '-';
}

function auditTable(audit: readonly AuditEntry[], now: number): string {
  return formatTable(
    ['WHEN', 'ACTOR', 'ACTION', 'FROM', 'TO', 'FENCE', 'REASON'],
    audit.map((entry) => [
      relativeTime(entry.at, now),
      entry.actor,
      entry.action,
      entry.from,
      entry.to,
      cell(entry.fence),
      entry.reason,
    ]),
  );
}

/**
 * No work item under this identity, but quarantined messages that named it (`ls --state quarantined` lists them
 * with it): shows those messages and why nothing ran. No such message either ▶ the ItemNotFoundError (exit 1).
 */
async function showQuarantinedMessages(target: CliTarget, identity: JobIdentity, io: Io, json: boolean) {
  const { records, complete } = await quarantinedMessagesFor(target.admin, identity);
  if (records.length === 0) return false;
  if (json) {
    printJson(io, { item: null, quarantinedMessages: records, complete });
    return true;
  }
  const now = io.now();
  io.out(
    `${formatIdentity(identity)}  no work item: the worker quarantined the message(s) that named it, so nothing ran`,
  );
  io.out(
    formatTable(
      ['MESSAGE', 'REASON', 'DETAIL', 'BODY', 'QUARANTINED'],
      records.map((record) => [
        cell(record.messageId),
        cell(record.reason),
        cell(record.detail),
        `${cell(record.bodyBytes)} bytes, sha-256 ${cell(record.bodySha256).slice(0, 12)}…`,
        relativeTime(record.parkedAt, now),
      ]),
    ).replace(/^/gm, '  '),
  );
  io.out(
    `\nA quarantined message is not a work item: there is nothing to retry, cancel or resolve. Fix what the reason names (e.g. register the job type or version in the worker) and send the job again.${complete ? '' : `\n(only the first pages of ${identity.tenantId}'s quarantine were read)`}`,
  );
  return true;
}

async function run(argv: readonly string[], io: Io): Promise<number> {
  const input = parseCommandLine(spec, schema, argv);
  const identity = { tenantId: input.tenant, operationId: input.operation };
  // Only --payload writes an audit record (read_payload).
  return withTargetAuditedIf(input.payload === true, input, io, async (target) => {
    let item: ItemDetail;
    try {
      item = await showItem(target.admin, identity);
    } catch (error) {
      if (
        error instanceof ItemNotFoundError &&
        (await showQuarantinedMessages(target, identity, io, input.json === true))
      )
        return 0;
      throw error;
    }
    const payload = input.payload
      ? await approvalPayload(target.admin, identity, {
          actor: target.actor,
          reason: 'approval review (leasefence show --payload)',
        })
      : undefined;
    if (input.json) {
      printJson(io, { item, ...(payload ? { payload } : {}) });
      return 0;
    }
    const now = io.now();
    const steps = Object.entries((item.steps ?? {}) as Record<string, { fence: number; at: number }>);
    io.out(`${subject(item)}  ${cell(item.jobType)}  ${cell(item.state)}`);
    io.out(
      formatPairs([
        ['fence', `${cell(item.fence)} (attempts ${cell(item.attempts)} of ${cell(item.maxAttempts)})`],
        [
          'payload',
          `sha-256 ${cell(item.payloadHash)} (${item.payloadRef ? `ref ${cell(item.payloadRef)}` : 'body in the payloads table'})`,
        ],
        [
          'outcome',
          item.outcomeCode ? `${cell(item.outcomeCode)} ${item.result === undefined ? '' : cell(item.result)}` : '-',
        ],
        ['error', item.errorCode ? `${cell(item.errorCode)}: ${cell(item.errorMessage)}` : '-'],
        [
          'lease',
          item.leaseOwner ? `${cell(item.leaseOwner)}, expires ${relativeTime(item.leaseExpiresAt, now)}` : '-',
        ],
        ['due', item.state === 'queued' ? relativeTime(item.availableAt, now) : '-'],
        ['steps', steps.length ? steps.map(([name, step]) => `${name} (fence ${step.fence})`).join(', ') : '-'],
        ['parent', item.parentOperationId ? cell(item.parentOperationId) : '-'],
        ['successors', successorList(item.successors)],
        ['created', relativeTime(item.createdAt, now)],
        ['updated', relativeTime(item.updatedAt, now)],
      ]),
    );
    const attempts = attemptsTable(item, now).replace(/^/gm, '  ');
    io.out(
      (item.ah as unknown[] | undefined)?.length
        ? `\nattempts (oldest first, last five)\n${attempts}`
        : '\nattempts: none yet',
    );
    const audit = auditTable(item.audit, now).replace(/^/gm, '  ');
    io.out(item.audit.length ? `\naudit (oldest first)\n${audit}` : '\naudit: no operator actions');
    if (payload) io.out(`\n${approvalPayloadText(payload, now)}`);
    return 0;
  });
}

/** `leasefence show`: one item with its attempt history and audit trail. */
const showCommand: CliCommand = { spec, run };

export { ITEM_ARGUMENTS, showCommand };
