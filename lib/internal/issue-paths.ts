import type { z } from 'zod/mini';

/**
 * Describes validation issues of untrusted input with what the schema defines and nothing the input chose:
 * each issue is `path: code`, where a path segment is kept only when it is a key the schema declares or an
 * array index; a key taken from the input (record and map keys, anything the walk cannot place) becomes `*`.
 * Issue messages are never used: zod quotes unknown keys and values in them.
 */

/** The internal definition zod 4 keeps on every schema (only the fields the walk reads). */
interface SchemaDef {
  type?: string;
  shape?: Record<string, unknown>;
  element?: unknown;
  innerType?: unknown;
  in?: unknown;
  options?: unknown[];
  items?: unknown[];
}

const WRAPPERS = new Set(['optional', 'nullable', 'default', 'prefault', 'catch', 'readonly', 'nonoptional']);
const OPAQUE = '*';

function defOf(schema: unknown): SchemaDef | undefined {
  return (schema as { _zod?: { def?: SchemaDef } } | undefined)?._zod?.def;
}

function lazyInner(schema: unknown): unknown {
  return (schema as { _zod?: { innerType?: unknown } } | undefined)?._zod?.innerType;
}

/** The schema one path segment leads to, or undefined when the segment is data (or the walk cannot tell). */
function child(schema: unknown, segment: PropertyKey): { known: boolean; next: unknown } {
  const def = defOf(schema);
  if (!def) return { known: false, next: undefined };
  if (def.type && WRAPPERS.has(def.type)) return child(def.innerType, segment);
  if (def.type === 'pipe') return child(def.in, segment);
  // The lazy's own inner schema (built once, kept by zod), not def.getter(), which would build another copy.
  if (def.type === 'lazy') return child(lazyInner(schema), segment);
  if (def.type === 'object' && typeof segment === 'string' && def.shape && Object.hasOwn(def.shape, segment)) {
    return { known: true, next: def.shape[segment] };
  }
  if (def.type === 'array' && typeof segment === 'number') return { known: true, next: def.element };
  if (def.type === 'tuple' && typeof segment === 'number') return { known: true, next: def.items?.[segment] };
  if (def.type === 'union') {
    for (const option of def.options ?? []) {
      const found = child(option, segment);
      if (found.known) return found;
    }
  }
  return { known: false, next: undefined };
}

/** The issue's path with every segment the schema does not declare replaced by `*`. */
function safePath(schema: unknown, path: readonly PropertyKey[]): string {
  const segments: string[] = [];
  let current: unknown = schema;
  for (const segment of path) {
    const step = child(current, segment);
    segments.push(step.known ? String(segment) : OPAQUE);
    current = step.next;
  }
  return segments.join('.') || '(root)';
}

/** `path: code` for each issue (at most `max`), safe to store and show: no input text, no input keys. */
function describeIssues(schema: z.core.$ZodType, issues: readonly z.core.$ZodIssue[], max = 10): string {
  const described = issues.slice(0, max).map((issue) => `${safePath(schema, issue.path)}: ${issue.code}`);
  const more = issues.length > max ? `; ${issues.length - max} more` : '';
  return `${described.join('; ')}${more}`;
}

export { describeIssues, safePath };
