import { memoizeBounded } from '../../internal/memoize.js';
import { isOrdinaryObject } from '../../internal/object-shape.js';
import { outcomeCodeSchema } from '../../rules.js';

/**
 * Outcome codes recur on every job: each distinct code is checked with the schema's own rule once and the verdict
 * kept (a bounded cache); a refused code sends the outcome to the schema, which reports it.
 */
const validOutcomeCode = memoizeBounded((code) => outcomeCodeSchema.safeParse(code).success, 256);

/**
 * The commonest job outcome, `{ outcomeCode }` alone in a literal-like object, checked in one pass ahead of the full
 * zod schema (rules.ts's jobOutcomeSchema): returned exactly as the schema returns it (a copy) when it is valid;
 * anything else (a `result`, another member, an unusual object, a bad code) returns undefined and the caller parses
 * with the schema, which gives the verdict and the typed error. So it accepts nothing the schema refuses
 * (test/unit/store/outcome-check.test.ts). Why: a zod parse per job on figure 9's path (test/bench/README.md).
 */
function checkPlainOutcome(value: unknown): { outcomeCode: string } | undefined {
  if (!isOrdinaryObject(value)) return undefined;
  if (Reflect.ownKeys(value).length !== 1) return undefined;
  for (const key in value) if (key !== 'outcomeCode') return undefined;
  const code = (value as { outcomeCode?: unknown }).outcomeCode;
  if (typeof code !== 'string' || !validOutcomeCode(code)) return undefined;
  return { outcomeCode: code };
}

export { checkPlainOutcome };
