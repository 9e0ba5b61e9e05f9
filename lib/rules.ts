import * as z from 'zod';

/**
 * The one home of each naming and size rule leasefence enforces at its boundaries. Every module that
 * validates one of these imports it from here, so two copies can never drift apart.
 */

/** Step names: 1–64 chars of `[A-Za-z0-9._:-]`; stored as one map key (a dot never nests) and part of a request token. */
const stepNameSchema = z.string().regex(/^[A-Za-z0-9._:-]{1,64}$/, 'step name must be 1-64 chars of [A-Za-z0-9._:-]');

/** Largest recorded step result, in UTF-8 bytes of its JSON (it lives on the work item, whose limit is 400 KB). */
const MAX_STEP_RESULT_BYTES = 16 * 1024;

/** UTF-8 bytes of a value's JSON; undefined when it has no JSON form (a function, a bigint, a cycle). */
function jsonBytes(value: unknown): number | undefined {
  try {
    const text = JSON.stringify(value);
    return text === undefined ? undefined : Buffer.byteLength(text, 'utf8');
  } catch {
    return undefined;
  }
}

/** A step result: undefined (recorded as null) or a JSON value of at most MAX_STEP_RESULT_BYTES UTF-8 bytes. */
const stepResultSchema = z.unknown().superRefine((value, context) => {
  if (value === undefined) return;
  const bytes = jsonBytes(value);
  if (bytes === undefined) context.addIssue({ code: 'custom', message: 'a step result must be a JSON value' });
  else if (bytes > MAX_STEP_RESULT_BYTES) {
    context.addIssue({
      code: 'custom',
      message: `a step result is at most ${MAX_STEP_RESULT_BYTES} bytes of JSON (UTF-8); this one is ${bytes}`,
    });
  }
});

export { MAX_STEP_RESULT_BYTES, stepNameSchema, stepResultSchema };
