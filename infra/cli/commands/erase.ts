import * as z from 'zod';
import type { RawIdAuditCount } from '../../../lib/admin/audit-raw-ids.js';
import { erasePayloads } from '../../../lib/admin/erase-payloads.js';
import { operationIdSchema, tenantIdSchema } from '../../../lib/identity.js';
import { type CommandSpec, parseCommandLine } from '../args.js';
import { type CliCommand, withAuditedTarget } from '../command.js';
import { IDENTIFIER_KEY_OPTIONS, identifierKeyShape } from '../identifier-key.js';
import { type Io, printJson } from '../output.js';
import { commonShape, reasonFlag, TARGET_OPTIONS, targetShape } from '../schemas.js';
import { COMMAND_SUMMARIES } from '../summaries.js';

const spec: CommandSpec = {
  name: 'erase',
  summary: COMMAND_SUMMARIES.erase,
  positionals: [{ name: 'tenant', description: 'tenant whose payload bodies are erased' }],
  options: {
    reason: {
      type: 'string',
      placeholder: '<text>',
      description: 'why (kept in the audit trail), e.g. the request id',
    },
    operation: {
      type: 'string',
      placeholder: '<operationId>',
      description: 'erase this one operation of the tenant only (its body, row text, shadow row, DLQ messages)',
    },
    yes: { type: 'boolean', description: 'confirm: erasing cannot be undone' },
    ...TARGET_OPTIONS,
    ...IDENTIFIER_KEY_OPTIONS,
  },
  examples: [
    'leasefence erase acme --reason "GDPR request 42" --yes',
    'leasefence erase acme --operation refund-r_815 --reason "GDPR request 43" --yes',
  ],
};

const schema = z.strictObject({
  ...commonShape,
  ...targetShape,
  ...identifierKeyShape,
  tenant: tenantIdSchema,
  operation: z.optional(operationIdSchema),
  reason: reasonFlag,
  yes: z.literal(true, { error: 'erasing cannot be undone: pass --yes to confirm' }),
});

async function run(argv: readonly string[], io: Io): Promise<number> {
  const input = parseCommandLine(spec, schema, argv);
  return withAuditedTarget(input, io, async (target) => {
    let deleted = 0;
    let cleared = 0;
    let shadowCleared = 0;
    let quarantineCleared = 0;
    let rawIdAuditRecords: RawIdAuditCount | undefined;
    const deadLetters = { removed: 0, unattributed: 0 };
    const auditIds: string[] = [];
    for (;;) {
      const report = await erasePayloads(target.admin, {
        tenantId: input.tenant,
        ...(input.operation !== undefined ? { operationId: input.operation } : {}),
        reason: input.reason,
        actor: target.actor,
      });
      deleted += report.deleted;
      cleared += report.cleared;
      shadowCleared += report.shadowCleared;
      quarantineCleared += report.quarantineCleared;
      rawIdAuditRecords = report.rawIdAuditRecords;
      deadLetters.removed += report.deadLetters?.removed ?? 0;
      // Each call reads the whole DLQ again: the last call's count is the one that stands.
      deadLetters.unattributed = report.deadLetters?.unattributed ?? 0;
      auditIds.push(report.auditId);
      if (report.complete) break;
    }
    const scope =
      input.operation !== undefined ? `operation ${input.tenant}/${input.operation}` : `tenant ${input.tenant}`;
    if (input.json)
      printJson(io, {
        tenantId: input.tenant,
        ...(input.operation !== undefined ? { operationId: input.operation } : {}),
        deleted,
        cleared,
        shadowCleared,
        quarantineCleared,
        deadLetters,
        ...(rawIdAuditRecords ? { rawIdAuditRecords } : {}),
        complete: true,
        auditIds,
      });
    else {
      io.out(
        `erased ${deleted} payload bod${deleted === 1 ? 'y' : 'ies'} of ${scope} and the results and error text of ${cleared} work row(s) and the executions of ${shadowCleared} shadow row(s); rows kept as tombstones; the ids of ${quarantineCleared} quarantine record(s) removed; ${deadLetters.removed} DLQ message(s) naming it deleted`,
      );
      io.out(
        `jobs of ${scope} that have not run yet will be quarantined (payload missing); audited as ${target.actor}`,
      );
      if (deadLetters.unattributed > 0)
        io.out(
          `NOT EVALUATED: ${deadLetters.unattributed} DLQ message(s) name no tenant (not a JSON object with a tenantId) and may hold anyone's data: redrive them (the worker quarantines them, keeping a digest, never the body)`,
        );
      const rawIds = rawIdAuditNote(rawIdAuditRecords);
      if (rawIds) io.out(rawIds);
    }
    return deadLetters.unattributed > 0 || rawIdAuditNote(rawIdAuditRecords) ? 1 : 0;
  });
}

/** What erase cannot do about audit records older versions wrote with raw ids; undefined when there are none. */
function rawIdAuditNote(count: RawIdAuditCount | undefined): string | undefined {
  if (count === undefined)
    return 'NOT EVALUATED: the audit log was not checked for raw ids (the erase did not complete)';
  if (!count.complete)
    return `NOT EVALUATED: the audit log was not read to its end (${count.found} record(s) with raw ids found so far): run \`leasefence audit-pseudonymise\` (docs/RUNBOOK.md)`;
  if (count.found > 0)
    return `NOT DONE: ${count.found} audit record(s) written before pseudonyms still name it by raw id; the audit log is write-once for the admin: run \`leasefence audit-pseudonymise\` with an operator's own credentials (docs/RUNBOOK.md)`;
  return undefined;
}

/** `leasefence erase`: the payload erasure of the admin API, until complete. */
const eraseCommand: CliCommand = { spec, run };

export { eraseCommand };
