import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { envelopeJsonSchemaText } from '../../lib/messaging/contract.js';
import { ROOT } from './cli-runner.js';

/** The checked-in envelope schema, which the package ships as `leasefence/schema/envelope.schema.json`. */
const ENVELOPE_SCHEMA_FILE = join(ROOT, 'schema', 'envelope.schema.json');

// `npm run contract`: rewrites the file from the zod schema (test/unit/messaging/contract.test.ts fails until it is).
if (process.argv[1]?.endsWith('write-contract.ts')) {
  writeFileSync(ENVELOPE_SCHEMA_FILE, envelopeJsonSchemaText());
  console.log(`wrote ${ENVELOPE_SCHEMA_FILE}`);
}

export { ENVELOPE_SCHEMA_FILE };
