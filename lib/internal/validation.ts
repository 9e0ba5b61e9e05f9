import type { z } from 'zod';
import { type InputIssue, InvalidInputError } from '../errors.js';

/** Parses `value` with `schema`; on failure throws InvalidInputError naming every bad field. Never partial. */
function parseInput<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issues: InputIssue[] = result.error.issues.map((issue) => ({
    path: issue.path.map(String).join('.') || '(root)',
    message: issue.message,
  }));
  const detail = issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ');
  throw new InvalidInputError(`invalid ${what}: ${detail}`, issues, { cause: result.error });
}

export { parseInput };
