import * as z from 'zod';
import { pseudonymiseAuditRecords } from '../../../lib/admin/audit-raw-ids.js';
import { DEVELOPMENT_IDENTIFIER_KEY } from '../../../lib/hashing.js';
import { identifierKeyLoader } from '../../../lib/lambda/identifier-key.js';
import { AuditMigration } from '../../../lib/store/index.js';
import { type CommandSpec, parseCommandLine } from '../args.js';
import { type CliCommand, withTarget } from '../command.js';
import { UsageError } from '../errors.js';
import { type Io, printJson } from '../output.js';
import { commonShape, TARGET_OPTIONS, targetShape } from '../schemas.js';
import { COMMAND_SUMMARIES } from '../summaries.js';

const spec: CommandSpec = {
  name: 'audit-pseudonymise',
  summary: COMMAND_SUMMARIES['audit-pseudonymise'],
  positionals: [],
  options: {
    'key-secret': {
      type: 'string',
      placeholder: '<arn>',
      description: "AWS: the deployment's identifier key secret (the construct's identifierKeySecret), required there",
    },
    yes: { type: 'boolean', description: 'confirm: rewrites audit records (needs UpdateItem in #audit)' },
    ...TARGET_OPTIONS,
  },
  examples: [
    'leasefence audit-pseudonymise --yes',
    'leasefence audit-pseudonymise --stack prod --key-secret arn:aws:secretsmanager:eu-west-1:111122223333:secret:IdentifierKey-Ab12 --yes',
  ],
};

const schema = z.strictObject({
  ...commonShape,
  ...targetShape,
  'key-secret': z
    .string()
    .regex(/^arn:[\w-]+:secretsmanager:/, 'a Secrets Manager secret ARN')
    .optional(),
  yes: z.literal(true, { error: 'this rewrites audit records: pass --yes to confirm' }),
});

async function run(argv: readonly string[], io: Io): Promise<number> {
  const input = parseCommandLine(spec, schema, argv);
  return withTarget(input, io, async (target) => {
    const secretArn = input['key-secret'];
    // A deployment's pseudonyms are made under its secret key: never rewrite them under the public development key.
    if (target.kind === 'aws' && secretArn === undefined)
      throw new UsageError("--key-secret: required against AWS (the deployment's identifier key secret ARN)");
    const key =
      secretArn === undefined
        ? DEVELOPMENT_IDENTIFIER_KEY
        : (await identifierKeyLoader({ identifierKeySecretArn: secretArn })()).key;
    const migration = new AuditMigration(target.client, target.tables.jobs);
    const report = await pseudonymiseAuditRecords({ ...target.admin, identifierKey: key }, migration);
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
