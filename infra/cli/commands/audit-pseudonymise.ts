import * as z from 'zod';
import { pseudonymiseAuditRecords } from '../../../lib/admin/audit-raw-ids.js';
import { AuditMigration } from '../../../lib/store/index.js';
import { type CommandSpec, parseCommandLine } from '../args.js';
import { type CliCommand, withAuditedTarget } from '../command.js';
import { IDENTIFIER_KEY_OPTIONS, identifierKeyShape } from '../identifier-key.js';
import { type Io, printJson } from '../output.js';
import { commonShape, TARGET_OPTIONS, targetShape } from '../schemas.js';
import { COMMAND_SUMMARIES } from '../summaries.js';

const spec: CommandSpec = {
  name: 'audit-pseudonymise',
  summary: COMMAND_SUMMARIES['audit-pseudonymise'],
  positionals: [],
  options: {
    yes: { type: 'boolean', description: 'confirm: rewrites audit records (needs UpdateItem in #audit)' },
    ...TARGET_OPTIONS,
    ...IDENTIFIER_KEY_OPTIONS,
  },
  examples: [
    'leasefence audit-pseudonymise --yes',
    'leasefence audit-pseudonymise --stack prod --yes',
    'leasefence audit-pseudonymise --jobs-table … --identifier-key-secret arn:aws:secretsmanager:eu-west-1:111122223333:secret:IdentifierKey-Ab12 --yes',
  ],
};

const schema = z.strictObject({
  ...commonShape,
  ...targetShape,
  ...identifierKeyShape,
  yes: z.literal(true, { error: 'this rewrites audit records: pass --yes to confirm' }),
});

async function run(argv: readonly string[], io: Io): Promise<number> {
  const input = parseCommandLine(spec, schema, argv);
  // A deployment's pseudonyms are made under its secret key: never rewritten under the public development key.
  return withAuditedTarget(input, io, async (target) => {
    const migration = new AuditMigration(target.client, target.tables.jobs);
    const report = await pseudonymiseAuditRecords(target.admin, migration);
    if (input.json) printJson(io, report);
    else {
      io.out(`rewrote ${report.rewritten} audit record(s): raw tenant and operation ids replaced by their pseudonyms`);
      if (report.skipped > 0) io.out(`${report.skipped} record(s) changed while being read: run again`);
      if (!report.complete) io.out('NOT EVALUATED: the audit log was not read to its end: run again');
    }
    return report.complete ? 0 : 1;
  });
}

/**
 * `leasefence audit-pseudonymise`: the one-off migration of audit records written before pseudonyms (raw tenant and
 * operation ids ▶ keyed pseudonyms). Needs credentials that may update the audit partition: no role of the construct.
 */
const auditPseudonymiseCommand: CliCommand = { spec, run };

export { auditPseudonymiseCommand };
