import * as z from 'zod/mini';
import englishLocale from 'zod/v4/locales/en.js';
import { type InputIssue, InvalidInputError } from '../errors.js';

/** How often a schema is parsed: `once` for what a process reads at start (its configuration, job definitions). */
interface ParseOptions {
  once?: boolean;
}

/**
 * zod/mini loads no locale (that is part of why it is small), so an issue without its own message would read
 * "Invalid input". This falls back to zod's English messages, the ones zod classic configures on import, only
 * where nothing else gave one: a message the schema, a global `z.config` custom error or locale sets still wins.
 */
let english: ((issue: z.core.$ZodRawIssue) => string | undefined) | undefined;
function fallbackMessage(issue: z.core.$ZodRawIssue): string | undefined {
  const config = z.config();
  const configured = config.customError?.(issue) ?? config.localeError?.(issue);
  if (typeof configured === 'string') return configured;
  if (configured?.message !== undefined) return configured.message;
  english ??= englishLocale().localeError as (issue: z.core.$ZodRawIssue) => string | undefined;
  const message = english(issue);
  return typeof message === 'string' ? message : undefined;
}

/**
 * zod compiles an object schema into a specialised parser (with `new Function`) on its first parse; for a schema
 * parsed once per process that compile costs more than the parse it speeds up, and it runs during the cold start.
 * `jitless` is zod's documented per-parse switch for that fast path: the same checks, the same result.
 */
const ONE_SHOT_PARSE = { jitless: true, error: fallbackMessage } as const;
const HOT_PARSE = { error: fallbackMessage } as const;

/**
 * Parses `value` with any zod 4 schema (classic or mini); the result, with zod's English messages where the schema
 * and the global config give none (see fallbackMessage). Never throws for bad input.
 */
function safeParseWithMessages<S extends z.core.$ZodType>(
  schema: S,
  value: unknown,
  options: ParseOptions = {},
): z.core.util.SafeParseResult<z.output<S>> {
  return z.safeParse(schema, value, options.once ? ONE_SHOT_PARSE : HOT_PARSE);
}

/**
 * Parses `value` with `schema`; on failure throws InvalidInputError naming every bad field. Never partial.
 * `once` skips zod's compiled fast path (see ONE_SHOT_PARSE): same verdict, less work for a one-off parse.
 */
function parseInput<S extends z.core.$ZodType>(
  schema: S,
  value: unknown,
  what: string,
  options: ParseOptions = {},
): z.output<S> {
  const result = safeParseWithMessages(schema, value, options);
  if (result.success) return result.data;
  const issues: InputIssue[] = result.error.issues.map((issue) => ({
    path: issue.path.map(String).join('.') || '(root)',
    message: issue.message,
  }));
  const detail = issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ');
  throw new InvalidInputError(`invalid ${what}: ${detail}`, issues, { cause: result.error });
}

export { parseInput, safeParseWithMessages };
