/**
 * A small model of IAM condition evaluation, for the operators the construct writes: enough to ask "does this
 * statement apply to this request?" of a synthesized template. Semantics as AWS documents them: a single-valued
 * operator on an absent key does not match; `ForAllValues` on an absent or empty key matches (vacuously);
 * `ForAnyValue` on an absent key does not match; a policy variable with no value makes its condition not match.
 */

/** What a request carries that the construct's conditions look at. */
interface RequestContext {
  principalTags?: Record<string, string>;
  /** `dynamodb:LeadingKeys`: the partition keys the request touches. */
  leadingKeys?: string[];
  /** Any other key, e.g. `lambda:InvokedViaFunctionUrl`. */
  keys?: Record<string, string | string[]>;
}

/** IAM StringLike: `*` any run of characters, `?` exactly one, everything else literally. */
function likeMatches(pattern: string, value: string): boolean {
  const source = pattern
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${source}$`, 's').test(value);
}

/** The values of a condition key in the request (undefined when absent). */
function keyValues(context: RequestContext, key: string): string[] | undefined {
  if (key === 'dynamodb:LeadingKeys') return context.leadingKeys;
  const tag = /^aws:PrincipalTag\/(.+)$/.exec(key)?.[1];
  if (tag !== undefined) {
    const value = context.principalTags?.[tag];
    return value === undefined ? undefined : [value];
  }
  const value = context.keys?.[key];
  return value === undefined ? undefined : [value].flat();
}

/** Substitutes `${aws:PrincipalTag/x}`; undefined when a variable has no value. */
function substitute(pattern: string, context: RequestContext): string | undefined {
  let missing = false;
  const result = pattern.replace(/\$\{aws:PrincipalTag\/([^}]+)\}/g, (_match, tag: string) => {
    const value = context.principalTags?.[tag];
    if (value === undefined) missing = true;
    return value ?? '';
  });
  return missing ? undefined : result;
}

function compare(operator: string, pattern: string, value: string): boolean {
  if (operator === 'StringLike') return likeMatches(pattern, value);
  if (operator === 'StringNotLike') return !likeMatches(pattern, value);
  if (operator === 'StringEquals') return pattern === value;
  if (operator === 'StringNotEquals') return pattern !== value;
  if (operator === 'Bool') return String(pattern).toLowerCase() === value.toLowerCase();
  throw new Error(`operator ${operator} is not modelled`);
}

/** One operator block (`{ key: patterns }`) against the request. */
function blockMatches(qualifiedOperator: string, entries: Record<string, unknown>, context: RequestContext): boolean {
  const [qualifier, operator] = qualifiedOperator.includes(':')
    ? (qualifiedOperator.split(':') as [string, string])
    : [undefined, qualifiedOperator];
  const ifExists = operator.endsWith('IfExists');
  const base = ifExists ? operator.slice(0, -'IfExists'.length) : operator;
  return Object.entries(entries).every(([key, raw]) => {
    const patterns = [raw].flat().map((pattern) => substitute(String(pattern), context));
    if (patterns.some((pattern) => pattern === undefined)) return false;
    const usable = patterns as string[];
    const values = keyValues(context, key);
    // A negated operator (StringNotLike, StringNotEquals) matches a value that matches none of the patterns.
    const negated = /^String\w*Not/.test(base);
    const anyPattern = (value: string) =>
      negated
        ? usable.every((pattern) => compare(base, pattern, value))
        : usable.some((pattern) => compare(base, pattern, value));
    if (qualifier === 'ForAllValues') return (values ?? []).every(anyPattern);
    if (qualifier === 'ForAnyValue') return (values ?? []).some(anyPattern);
    if (values === undefined) return ifExists;
    return values.some(anyPattern);
  });
}

/** True when every block of the condition matches the request (no condition: always). */
function conditionMatches(condition: unknown, context: RequestContext): boolean {
  if (condition === undefined) return true;
  return Object.entries(condition as Record<string, Record<string, unknown>>).every(([operator, entries]) =>
    blockMatches(operator, entries, context),
  );
}

export { conditionMatches, likeMatches, type RequestContext };
