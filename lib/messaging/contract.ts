import * as z from 'zod/mini';
import { jobEnvelopeSchema } from './envelope.js';

/** The published envelope schema's `$id`: names envelope version 1 (a URN: no web address is promised). */
const ENVELOPE_SCHEMA_ID = 'urn:leasefence:schema:envelope:v1';

/**
 * The message contract for producers in any language: the JSON Schema (draft 2020-12) of the SQS message body,
 * generated from the one zod schema the worker parses with, never a hand copy. The package ships it as
 * `leasefence/schema/envelope.schema.json`; test/unit/messaging/contract.test.ts fails when the two drift, and
 * test/unit/messaging/schema-agreement.test.ts when the schema (ajv) and the worker's parser disagree on any body.
 * The schema checks shape only: a body that passes can still be refused for its meaning (unknown job type,
 * a payload whose hash does not match); docs/PRODUCERS.md lists those answers.
 */
function envelopeJsonSchema(): Record<string, unknown> {
  const generated = z.toJSONSchema(jobEnvelopeSchema, { target: 'draft-2020-12', io: 'input' });
  const { $schema, ...rest } = generated;
  return {
    $schema,
    $id: ENVELOPE_SCHEMA_ID,
    title: 'leasefence job message (SQS body)',
    description:
      "A wake-up signal naming a job: identity, job type, the payload's SHA-256 over its RFC 8785 canonical JSON, " +
      'and where the body is (a caller-owned ref, the payloads table, or carried in the message). Producers send kind "job"; ' +
      '"wake" is the library\'s own re-signal of an existing row. See docs/PRODUCERS.md.',
    ...rest,
    ...WAKE_CARRIES_NO_BODY,
  };
}

/**
 * The envelope schema's one rule that zod cannot put into JSON Schema itself (a refinement, envelope.ts: only a
 * `kind: "job"` message may carry a payload body), written as the JSON Schema `if`/`then` it means. The property
 * test test/unit/messaging/schema-agreement.test.ts fails when this and the worker's parser disagree on any body.
 */
const WAKE_CARRIES_NO_BODY = {
  if: { type: 'object', properties: { kind: { const: 'wake' } }, required: ['kind'] },
  // biome-ignore lint/suspicious/noThenProperty: JSON Schema's own keyword (a plain object, never a function)
  then: { properties: { payload: { not: { type: 'object', properties: { body: true }, required: ['body'] } } } },
} as const;

/** The schema file's text as written to schema/envelope.schema.json (two-space JSON and a final newline). */
function envelopeJsonSchemaText(): string {
  return `${JSON.stringify(envelopeJsonSchema(), null, 2)}\n`;
}

export { ENVELOPE_SCHEMA_ID, envelopeJsonSchema, envelopeJsonSchemaText };
