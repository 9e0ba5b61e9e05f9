import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import * as z from 'zod';
import { type RedriveReport, redriveDeadLetters } from '../../../lib/admin/redrive.js';
import { type CommandSpec, parseCommandLine } from '../args.js';
import { type CliCommand, withAuditedTarget } from '../command.js';
import { TargetError } from '../errors.js';
import { IDENTIFIER_KEY_OPTIONS, identifierKeyShape } from '../identifier-key.js';
import { type Io, printJson } from '../output.js';
import { progressBar } from '../progress.js';
import { commonShape, integerFlag, TARGET_OPTIONS, targetShape } from '../schemas.js';
import { COMMAND_SUMMARIES } from '../summaries.js';

/** Messages moved per admin call (each call writes one audit record with its counts). */
const CHUNK = 100;

const spec: CommandSpec = {
  name: 'redrive',
  summary: COMMAND_SUMMARIES.redrive,
  positionals: [],
  options: {
    max: { type: 'string', placeholder: '<n>', description: 'move at most n messages (default: all, up to 100,000)' },
    ...TARGET_OPTIONS,
    ...IDENTIFIER_KEY_OPTIONS,
  },
  examples: ['leasefence redrive', 'leasefence redrive --max 500 --json'],
};

const schema = z.strictObject({
  ...commonShape,
  ...targetShape,
  ...identifierKeyShape,
  max: integerFlag(1, 100_000).default(100_000),
});

type Totals = Omit<RedriveReport, 'auditId'> & { auditIds: string[] };

async function run(argv: readonly string[], io: Io): Promise<number> {
  const input = parseCommandLine(spec, schema, argv);
  return withAuditedTarget(input, io, async (target) => {
    const dlqUrl = target.deadLetterQueueUrl;
    if (!dlqUrl) throw new TargetError('no dead-letter queue is known for this target; pass --dlq-url');
    const attributes = await target.sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: dlqUrl, AttributeNames: ['ApproximateNumberOfMessages'] }),
    );
    const waiting = Number(attributes.Attributes?.ApproximateNumberOfMessages ?? 0);
    const progress = progressBar(io.isTTY && !input.json, Math.min(waiting, input.max), 'messages moved');
    const totals: Totals = { received: 0, moved: 0, movedInvalid: 0, sendFailed: 0, deleteFailed: 0, auditIds: [] };
    try {
      while (totals.received < input.max) {
        const chunk = Math.min(CHUNK, input.max - totals.received);
        const report = await redriveDeadLetters(target.admin, { max: chunk, actor: target.actor });
        totals.received += report.received;
        totals.moved += report.moved;
        totals.movedInvalid += report.movedInvalid;
        totals.sendFailed += report.sendFailed;
        totals.deleteFailed += report.deleteFailed;
        totals.auditIds.push(report.auditId);
        progress.update(totals.moved);
        // A short chunk means the DLQ answered empty; a chunk that moved nothing failed (it stays in the DLQ).
        if (report.received < chunk || report.moved === 0) break;
      }
    } finally {
      progress.finish();
    }
    if (input.json) {
      printJson(io, totals);
    } else {
      io.out(
        `moved ${totals.moved} message(s) from the DLQ to the jobs queue (${totals.movedInvalid} not valid envelopes: the worker will quarantine them)`,
      );
      if (totals.sendFailed > 0) io.out(`${totals.sendFailed} could not be sent and stay in the DLQ`);
      if (totals.deleteFailed > 0)
        io.out(`${totals.deleteFailed} were sent but not deleted from the DLQ (a harmless duplicate wake-up)`);
      io.out(`audited as ${target.actor} (${totals.auditIds.length} audit record(s))`);
    }
    return totals.sendFailed > 0 ? 1 : 0;
  });
}

/** `leasefence redrive`: receive ▶ send ▶ delete, in audited chunks, with a progress bar on a terminal. */
const redriveCommand: CliCommand = { spec, run };

export { redriveCommand };
