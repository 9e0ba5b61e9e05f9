import * as z from 'zod';
import { approveItem } from '../../../lib/admin/approve.js';
import { showItem } from '../../../lib/admin/show.js';
import { payloadHashSchema } from '../../../lib/rules.js';
import { type CommandSpec, parseCommandLine } from '../args.js';
import { type CliCommand, withTarget } from '../command.js';
import type { Io } from '../output.js';
import { explainMissingItem } from '../quarantined-messages.js';
import { commonShape, identityShape, reasonFlag, TARGET_OPTIONS, targetShape } from '../schemas.js';
import { COMMAND_SUMMARIES } from '../summaries.js';
import { printAction } from './item-action.js';
import { ITEM_ARGUMENTS } from './show.js';

const spec: CommandSpec = {
  name: 'approve',
  summary: COMMAND_SUMMARIES.approve,
  positionals: ITEM_ARGUMENTS,
  identityArgument: true,
  options: {
    reason: { type: 'string', placeholder: '<text>', description: 'why (kept in the audit trail)' },
    'payload-hash': {
      type: 'string',
      placeholder: '<sha256>',
      description:
        'the payload hash you reviewed (leasefence show prints it): the approval covers that payload only and is refused if the row holds another; default the hash the row holds now, printed with the result',
    },
    ...TARGET_OPTIONS,
  },
  examples: [
    'leasefence approve m_4471 refund-r_815 --reason "amount checked against ticket 912" --payload-hash 3f0c…',
  ],
};

const schema = z.strictObject({
  ...commonShape,
  ...targetShape,
  ...identityShape,
  reason: reasonFlag,
  'payload-hash': z.optional(payloadHashSchema),
});

async function run(argv: readonly string[], io: Io): Promise<number> {
  const input = parseCommandLine(spec, schema, argv);
  const identity = { tenantId: input.tenant, operationId: input.operation };
  return withTarget(input, io, async (target) => {
    const result = await explainMissingItem(target.admin, identity, 'approve', async () => {
      // Without --payload-hash: the hash the row holds now, shown with the result; the write still checks it.
      const payloadHash = input['payload-hash'] ?? String((await showItem(target.admin, identity)).payloadHash);
      return approveItem(target.admin, identity, { reason: input.reason, actor: target.actor, payloadHash });
    });
    printAction(io, 'approved', { ...result, item: result.item as unknown as Record<string, unknown> }, input.json);
    if (!input.json) io.out(`  bound to payload hash ${result.item.payloadHash}`);
    return 0;
  });
}

/**
 * `leasefence approve`: awaiting_approval ▶ queued for one payload hash, audited, then a wake-up. A `not-producer` job
 * type is refused here (no AWS-authenticated caller: approve it through the admin API).
 */
const approveCommand: CliCommand = { spec, run };

export { approveCommand };
