import type { z } from 'zod';
import { type InputIssue, InvalidInputError } from '../errors.js';

/** How often a schema is parsed: `once` for what a process reads at start (its configuration, job definitions). */
interface ParseOptions {
  once?: boolean;
}

/**
 * zod compiles an object schema into a specialised parser (with `new Function`) on its first parse; for a schema
 * parsed once per process that compile costs more than the parse it speeds up, and it runs during the cold start.
 * `jitless` is zod's documented per-parse switch for that fast path: the same checks, the same result.
 */
const ONE_SHOT_PARSE = { jitless: true } as const;

/**
 * Parses `value` with `schema`; on failure throws InvalidInputError naming every bad field. Never partial.
 * `once` skips zod's compiled fast path (see ONE_SHOT_PARSE): same verdict, less work for a one-off parse.
 */
function parseInput<S extends z.ZodType>(
  schema: S,
  value: unknown,
  what: string,
  options: ParseOptions = {},
): z.output<S> {
  const result = schema.safeParse(value, options.once ? ONE_SHOT_PARSE : undefined);
  if (result.success) return result.data;
  const issues: InputIssue[] = result.error.issues.map((issue) => ({
    path: issue.path.map(String).join('.') || '(root)',
    message: issue.message,
  }));
  const detail = issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ');
  throw new InvalidInputError(`invalid ${what}: ${detail}`, issues, { cause: result.error });
}

export { parseInput };
