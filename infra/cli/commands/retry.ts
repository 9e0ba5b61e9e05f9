import * as z from 'zod';
import { retryItem } from '../../../lib/admin/retry.js';
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
  name: 'retry',
  summary: COMMAND_SUMMARIES.retry,
  positionals: ITEM_ARGUMENTS,
  identityArgument: true,
  options: {
    reason: { type: 'string', placeholder: '<text>', description: 'why (kept in the audit trail)' },
    'effect-did-not-happen': {
      type: 'boolean',
      description: 'state that the effect did not happen (required for class D; audited)',
    },
    ...TARGET_OPTIONS,
    ...IDENTIFIER_KEY_OPTIONS,
  },
  examples: [
    'leasefence retry acme stmt-42 --reason "template fixed in v2.3"',
    'leasefence retry acme mail-7 --reason "mail server log shows no delivery" --effect-did-not-happen',
  ],
};

const schema = z.strictObject({
  ...commonShape,
  ...targetShape,
  ...identifierKeyShape,
  ...identityShape,
  reason: reasonFlag,
  'effect-did-not-happen': z.boolean().optional(),
});

async function run(argv: readonly string[], io: Io): Promise<number> {
  const input = parseCommandLine(spec, schema, argv);
  const identity = { tenantId: input.tenant, operationId: input.operation };
  // Only a refused early statement (--effect-did-not-happen) writes an audit record.
  return withTargetAuditedIf(input['effect-did-not-happen'] === true, input, io, async (target) => {
    const result = await explainMissingItem(target.admin, identity, 'retry', () =>
      retryItem(target.admin, identity, {
        reason: input.reason,
        actor: target.actor,
        ...(input['effect-did-not-happen'] ? { effectDidNotHappen: true } : {}),
      }),
    );
    printAction(io, 'requeued', { ...result, item: result.item as unknown as Record<string, unknown> }, input.json);
    return 0;
  });
}

/** `leasefence retry`: an audited requeue followed by a wake-up. */
const retryCommand: CliCommand = { spec, run };

export { retryCommand };
