import * as z from 'zod';
import { erasePayloads } from '../../../lib/admin/erase-payloads.js';
import { tenantIdSchema } from '../../../lib/identity.js';
import { type CommandSpec, parseCommandLine } from '../args.js';
import { type CliCommand, withTarget } from '../command.js';
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
    yes: { type: 'boolean', description: 'confirm: erasing cannot be undone' },
    ...TARGET_OPTIONS,
  },
  examples: ['leasefence erase acme --reason "GDPR request 42" --yes'],
};

const schema = z.strictObject({
  ...commonShape,
  ...targetShape,
  tenant: tenantIdSchema,
  reason: reasonFlag,
  yes: z.literal(true, { error: 'erasing cannot be undone: pass --yes to confirm' }),
});

async function run(argv: readonly string[], io: Io): Promise<number> {
  const input = parseCommandLine(spec, schema, argv);
  return withTarget(input, io, async (target) => {
    let deleted = 0;
    let cleared = 0;
    let shadowCleared = 0;
    const auditIds: string[] = [];
    for (;;) {
      const report = await erasePayloads(target.admin, {
        tenantId: input.tenant,
        reason: input.reason,
        actor: target.actor,
      });
      deleted += report.deleted;
      cleared += report.cleared;
      shadowCleared += report.shadowCleared;
      auditIds.push(report.auditId);
      if (report.complete) break;
    }
    if (input.json)
      printJson(io, { tenantId: input.tenant, deleted, cleared, shadowCleared, complete: true, auditIds });
    else {
      io.out(
        `erased ${deleted} payload bod${deleted === 1 ? 'y' : 'ies'} of tenant ${input.tenant} and the results and error text of ${cleared} work row(s) and the executions of ${shadowCleared} shadow row(s); rows kept as tombstones`,
      );
      io.out(
        `jobs of ${input.tenant} that have not run yet will be quarantined (payload missing); audited as ${target.actor}`,
      );
    }
    return 0;
  });
}

/** `leasefence erase`: the payload erasure of the admin API, until complete. */
const eraseCommand: CliCommand = { spec, run };

export { eraseCommand };
