import * as z from 'zod';
import { ResolveTarget, resolveItem } from '../../../lib/admin/resolve.js';
import { outcomeCodeSchema } from '../../../lib/rules.js';
import { type CommandSpec, parseCommandLine } from '../args.js';
import { type CliCommand, withTargetAuditedIf } from '../command.js';
import { IDENTIFIER_KEY_OPTIONS, identifierKeyShape } from '../identifier-key.js';
import type { Io } from '../output.js';
import { explainMissingItem } from '../quarantined-messages.js';
import { commonShape, identityShape, reasonFlag, TARGET_OPTIONS, targetShape } from '../schemas.js';
import { COMMAND_SUMMARIES } from '../summaries.js';
import { printAction } from './item-action.js';
import { ITEM_ARGUMENTS } from './show.js';

const spec: CommandSpec = {
  name: 'resolve',
  summary: COMMAND_SUMMARIES.resolve,
  positionals: ITEM_ARGUMENTS,
  identityArgument: true,
  options: {
    to: {
      type: 'string',
      placeholder: '<state>',
      description: 'succeeded | failed_terminal | queued (queued retries it)',
    },
    reason: { type: 'string', placeholder: '<text>', description: 'why (kept in the audit trail)' },
    'effect-did-not-happen': {
      type: 'boolean',
      description: 'state that the effect did not happen (required for class D; audited)',
    },
    'outcome-code': { type: 'string', placeholder: '<code>', description: 'outcome or error code to record' },
    ...TARGET_OPTIONS,
    ...IDENTIFIER_KEY_OPTIONS,
  },
  examples: [
    'leasefence resolve m_4471 refund-r_815 --to succeeded --reason "provider shows refund gw_123" --outcome-code refunded',
    'leasefence resolve m_4471/refund-r_815 --to queued --reason "provider has no refund; safe to retry"',
  ],
};

const schema = z.strictObject({
  ...commonShape,
  ...targetShape,
  ...identifierKeyShape,
  ...identityShape,
  to: z.enum([ResolveTarget.succeeded, ResolveTarget.failed_terminal, ResolveTarget.queued]),
  reason: reasonFlag,
  'effect-did-not-happen': z.boolean().optional(),
  'outcome-code': z.optional(outcomeCodeSchema),
});

async function run(argv: readonly string[], io: Io): Promise<number> {
  const input = parseCommandLine(spec, schema, argv);
  const identity = { tenantId: input.tenant, operationId: input.operation };
  // Only a refused early statement (--effect-did-not-happen) writes an audit record.
  return withTargetAuditedIf(input['effect-did-not-happen'] === true, input, io, async (target) => {
    const result = await explainMissingItem(target.admin, identity, 'resolve', () =>
      resolveItem(target.admin, identity, {
        to: input.to,
        reason: input.reason,
        actor: target.actor,
        ...(input['outcome-code'] ? { outcomeCode: input['outcome-code'] } : {}),
        ...(input['effect-did-not-happen'] ? { effectDidNotHappen: true } : {}),
      }),
    );
    printAction(io, 'resolved', { ...result, item: result.item as unknown as Record<string, unknown> }, input.json);
    return 0;
  });
}

/** `leasefence resolve`: unknown ▶ succeeded | failed_terminal | queued. */
const resolveCommand: CliCommand = { spec, run };

export { resolveCommand };
