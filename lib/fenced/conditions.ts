import * as z from 'zod/mini';
import { isWriterAttribute, WRITER_ATTRIBUTES } from '../rules.js';
import type { ExpressionBuilder } from '../store/index.js';

/**
 * The caller's own business condition on a protected record, as data rather than an expression string:
 * the library renders it next to the fence condition (no placeholder collisions) and can evaluate it on
 * the item read back after a failed write, to say which attribute did not match.
 */

/** A value a condition compares with. */
type Scalar = string | number | boolean;

/** What one attribute must satisfy. A bare scalar means "equals". */
type Expectation =
  | Scalar
  | { readonly eq: Scalar }
  | { readonly ne: Scalar }
  | { readonly in: readonly Scalar[] }
  | { readonly exists: boolean }
  | { readonly lt: number | string }
  | { readonly le: number | string }
  | { readonly gt: number | string }
  | { readonly ge: number | string };

/** Attribute path ▶ expectation; every entry must hold (AND). Example: `{ status: { in: ['pending', 'sending'] } }`. */
type BusinessCondition = Readonly<Record<string, Expectation>>;

const ATTRIBUTE_PATH = /^[A-Za-z_][A-Za-z0-9_-]*(\.[A-Za-z_][A-Za-z0-9_-]*)*$/;
const WRITER_NAMES_MESSAGE = `${WRITER_ATTRIBUTES.join(', ')} belong to the fence and cannot be named by the caller`;

/** Why `path` cannot name an attribute (undefined when it can): the one rule behind both schemas below. */
function attributePathProblem(path: string): string | undefined {
  if (path.length > 255) return 'attribute path must be at most 255 characters';
  if (!ATTRIBUTE_PATH.test(path)) return 'attribute path must be names joined by dots';
  const top = path.indexOf('.') === -1 ? path : path.slice(0, path.indexOf('.'));
  return isWriterAttribute(top) ? WRITER_NAMES_MESSAGE : undefined;
}

// The schemas here are built on first use (z.lazy: the same checks and issues), not at import: a cold start
// whose first events never reach them does not pay for building them (BENCHMARKS.md figure 5).
/** A top-level or dotted attribute path (map members only; list indexes are not supported). */
const attributePathSchema = z.lazy(() =>
  z.string().check(
    z.superRefine((path, context) => {
      const problem = attributePathProblem(path);
      if (problem !== undefined) context.addIssue({ code: 'custom', message: problem });
    }),
  ),
);

const scalarSchema = z.lazy(() => z.union([z.string(), z.number(), z.boolean()]));
const orderedSchema = z.lazy(() => z.union([z.string(), z.number()]));

const expectationSchema = z.lazy(() =>
  z.union([
    scalarSchema,
    z.strictObject({ eq: scalarSchema }),
    z.strictObject({ ne: scalarSchema }),
    z.strictObject({ in: z.array(scalarSchema).check(z.minLength(1), z.maxLength(50)) }),
    z.strictObject({ exists: z.boolean() }),
    z.strictObject({ lt: orderedSchema }),
    z.strictObject({ le: orderedSchema }),
    z.strictObject({ gt: orderedSchema }),
    z.strictObject({ ge: orderedSchema }),
  ]),
);

/** A map keyed by attribute paths; each bad path is reported with its own reason. */
function attributeMapSchema<V extends z.core.$ZodType>(values: V) {
  return z.record(z.string(), values).check(
    z.superRefine((map, context) => {
      // A direct check per key: a nested safeParse per attribute was the costliest part of a fenced write's validation.
      for (const path of Object.keys(map)) {
        const problem = attributePathProblem(path);
        if (problem !== undefined) context.addIssue({ code: 'custom', path: [path], message: problem });
      }
    }),
  );
}

/** Validates a business condition at the boundary (at most 20 attributes). */
const businessConditionSchema = z.lazy(() =>
  attributeMapSchema(expectationSchema).check(
    z.refine((condition) => Object.keys(condition).length <= 20, {
      message: 'at most 20 attributes per condition',
    }),
  ),
);

const COMPARATORS = { eq: '=', ne: '<>', lt: '<', le: '<=', gt: '>', ge: '>=' } as const;
type Comparator = keyof typeof COMPARATORS;

/** Normalises an expectation to one operator and its operand. */
function normalise(expectation: Expectation): [Comparator, Scalar] | ['in', readonly Scalar[]] | ['exists', boolean] {
  if (typeof expectation !== 'object') return ['eq', expectation];
  if ('in' in expectation) return ['in', expectation.in];
  if ('exists' in expectation) return ['exists', expectation.exists];
  const [operator, operand] = Object.entries(expectation)[0] as [Comparator, Scalar];
  return [operator, operand];
}

/** Renders the condition with the builder's placeholders, or undefined when it is empty. Pure. */
function renderBusinessCondition(x: ExpressionBuilder, condition: BusinessCondition | undefined): string | undefined {
  const parts = Object.entries(condition ?? {}).map(([path, expectation]) => {
    const name = x.name(path);
    const [operator, operand] = normalise(expectation);
    if (operator === 'exists') return operand ? `attribute_exists(${name})` : `attribute_not_exists(${name})`;
    if (operator === 'in') return `${name} IN (${operand.map((value) => x.value(value)).join(', ')})`;
    return `${name} ${COMPARATORS[operator]} ${x.value(operand)}`;
  });
  return parts.length > 0 ? parts.join(' AND ') : undefined;
}

/** Reads a dotted path from an item. */
function readPath(item: Record<string, unknown> | undefined, path: string): unknown {
  let current: unknown = item;
  for (const segment of path.split('.')) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[segment];
  }
  return current;
}

/** DynamoDB semantics: an ordering comparison is false when types differ or the attribute is missing. */
function compare(actual: unknown, operator: Comparator, operand: Scalar): boolean {
  if (operator === 'eq') return actual === operand;
  if (operator === 'ne') return actual !== operand;
  if (typeof actual !== typeof operand || (typeof actual !== 'number' && typeof actual !== 'string')) return false;
  const [a, b] = [actual as number | string, operand as number | string];
  if (operator === 'lt') return a < b;
  if (operator === 'le') return a <= b;
  if (operator === 'gt') return a > b;
  return a >= b;
}

/** The attribute paths whose expectation the item does not meet (empty when the condition holds). */
function unmetExpectations(
  item: Record<string, unknown> | undefined,
  condition: BusinessCondition | undefined,
): string[] {
  return Object.entries(condition ?? {})
    .filter(([path, expectation]) => {
      const actual = readPath(item, path);
      const [operator, operand] = normalise(expectation);
      if (operator === 'exists') return (actual !== undefined) !== operand;
      if (operator === 'in') return !operand.includes(actual as Scalar);
      return !compare(actual, operator, operand);
    })
    .map(([path]) => path);
}

export {
  attributeMapSchema,
  attributePathProblem,
  attributePathSchema,
  type BusinessCondition,
  businessConditionSchema,
  type Expectation,
  renderBusinessCondition,
  type Scalar,
  unmetExpectations,
};
