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

// Marks an object as already valid for one schema. Module-private and non-enumerable: only this module can set
// it, and spreading or copying a vouched object never carries it over. (A WeakSet costs more per job.)
const VOUCHED = Symbol('leasefence.vouched');

/**
 * Records that `value` is valid for `schema` and freezes it (one level: nested objects the caller built must be
 * frozen by the caller; values it does not own, such as a job's result, are left alone). Only for objects built
 * from parts already validated by a schema that implies this one (a property test must say so), or results of
 * `schema` itself.
 */
function vouchFor<T extends object>(schema: z.ZodType, value: T): T {
  Object.defineProperty(value, VOUCHED, { value: schema });
  return Object.freeze(value);
}

/** parseInput that returns a value vouched for `schema` as it is: the worker's hot path validates each input once. */
function parseInputOnce<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
  if (typeof value === 'object' && value !== null && (value as { [VOUCHED]?: unknown })[VOUCHED] === schema) {
    return value as z.output<S>;
  }
  return parseInput(schema, value, what);
}

/** parseInput whose result is frozen and vouched for, so passing it on is not validated again. */
function parseAndVouch<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
  const parsed = parseInput(schema, value, what);
  return typeof parsed === 'object' && parsed !== null ? vouchFor(schema, parsed) : parsed;
}

export { parseAndVouch, parseInput, parseInputOnce, vouchFor };
