// The shape tests the one-pass checks (fenced/record-write-check.ts, messaging/envelope-check.ts) run before they
// accept anything: an object they cannot read plainly, with keys the schema would see differently, goes to the schema.

/** A literal-like object: Object.prototype directly above it (no class, no null prototype, no array). */
function isOrdinaryObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype;
}

/** Every own key an enumerable string (no symbol, no hidden member the schema would treat otherwise). */
function onlyEnumerableStringKeys(value: object): boolean {
  return Reflect.ownKeys(value).length === Object.keys(value).length;
}

/** Every own key enumerable and a string, every key (for…in, as the schema looks) in `allowed`, `required` present. */
function ownKeysWithin(value: object, allowed: ReadonlySet<string>, required: readonly string[] = []): boolean {
  if (!onlyEnumerableStringKeys(value)) return false;
  for (const key in value) if (!allowed.has(key)) return false;
  for (const key of required) if (!Object.hasOwn(value, key)) return false;
  return true;
}

export { isOrdinaryObject, onlyEnumerableStringKeys, ownKeysWithin };
