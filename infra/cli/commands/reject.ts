import * as z from 'zod';
import { rejectItem } from '../../../lib/admin/approve.js';
import { type CommandSpec, parseCommandLine } from '../args.js';
import { type CliCommand, withTarget } from '../command.js';
import type { Io } from '../output.js';
import { explainMissingItem } from '../quarantined-messages.js';
import { commonShape, identityShape, reasonFlag, TARGET_OPTIONS, targetShape } from '../schemas.js';
import { COMMAND_SUMMARIES } from '../summaries.js';
import { printAction } from './item-action.js';
import { ITEM_ARGUMENTS } from './show.js';

const spec: CommandSpec = {
  name: 'reject',
  summary: COMMAND_SUMMARIES.reject,
  positionals: ITEM_ARGUMENTS,
  identityArgument: true,
  options: {
    reason: { type: 'string', placeholder: '<text>', description: 'why (kept in the audit trail)' },
    ...TARGET_OPTIONS,
  },
  examples: ['leasefence reject m_4471 refund-r_815 --reason "not covered by the refund policy"'],
};

const schema = z.strictObject({ ...commonShape, ...targetShape, ...identityShape, reason: reasonFlag });

async function run(argv: readonly string[], io: Io): Promise<number> {
  const input = parseCommandLine(spec, schema, argv);
  const identity = { tenantId: input.tenant, operationId: input.operation };
  return withTarget(input, io, async (target) => {
    const item = await explainMissingItem(target.admin, identity, 'reject', () =>
      rejectItem(target.admin, identity, { reason: input.reason, actor: target.actor }),
    );
    printAction(io, 'rejected', { item: item as unknown as Record<string, unknown> }, input.json);
    return 0;
  });
}

/** `leasefence reject`: awaiting_approval ▶ cancelled (approval_rejected), fence + 1, audited; nothing ran. */
const rejectCommand: CliCommand = { spec, run };

export { rejectCommand };
