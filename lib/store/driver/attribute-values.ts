import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { convertToAttr, type marshallOptions } from '@aws-sdk/util-dynamodb';

/**
 * util-dynamodb's `marshall` of an item into an attribute map, with a fast path in front of it. Strings,
 * numbers, booleans, null, arrays and plain objects (every row and expression value the store writes) are
 * converted here; anything else — sets, maps, binary, NumberValue, bigint, class instances, empty strings
 * under `convertEmptyValues`, unsafe numbers, undefined without `removeUndefinedValues` — goes to
 * util-dynamodb's own `convertToAttr`, so the result and every error are exactly the library's.
 * Why not the library alone: its general type dispatch cost about 10 µs per job on the worker's hot path.
 */
function toAttributeMap(item: Record<string, unknown>, options: marshallOptions): Record<string, AttributeValue> {
  if (!isPlainRecord(item)) return (convertToAttr(item, options) as { M: Record<string, AttributeValue> }).M;
  return mapEntries(item, options);
}

/** One value as util-dynamodb's `convertToAttr` would convert it (same result, same errors). */
function toAttributeValue(value: unknown, options: marshallOptions): AttributeValue {
  switch (typeof value) {
    case 'string':
      if (value.length > 0 || options.convertEmptyValues !== true) return { S: value };
      break;
    case 'number':
      if (Number.isFinite(value) && (options.allowImpreciseNumbers === true || isSafeMagnitude(value)))
        return { N: String(value) };
      break;
    case 'boolean':
      return { BOOL: value };
    case 'object':
      if (value === null) return { NULL: true };
      if (Array.isArray(value)) return listOf(value, options);
      if (isPlainRecord(value)) return { M: mapEntries(value, options) };
      break;
  }
  return convertToAttr(value, options);
}

/** Within the range the library accepts without `allowImpreciseNumbers` (fractions included). */
function isSafeMagnitude(value: number): boolean {
  return value <= Number.MAX_SAFE_INTEGER && value >= Number.MIN_SAFE_INTEGER;
}

/** A plain object the library would convert as a map: `constructor` is Object, or absent (null prototype). */
function isPlainRecord(value: object): value is Record<string, unknown> {
  const maker = (value as { constructor?: unknown }).constructor;
  return maker === Object || maker === undefined;
}

function mapEntries(record: Record<string, unknown>, options: marshallOptions): Record<string, AttributeValue> {
  const map: Record<string, AttributeValue> = {};
  // for…in, as the library iterates: enumerable properties, inherited ones included.
  for (const key in record) {
    const value = record[key];
    if (typeof value === 'function') continue;
    if (value === undefined) {
      if (options.removeUndefinedValues === true) continue;
      return (convertToAttr(record, options) as { M: Record<string, AttributeValue> }).M;
    }
    map[key] = toAttributeValue(value, options);
  }
  return map;
}

function listOf(list: readonly unknown[], options: marshallOptions): AttributeValue {
  const converted: AttributeValue[] = [];
  for (let index = 0; index < list.length; index += 1) {
    const value = list[index];
    if (typeof value === 'function') continue;
    if (value === undefined) {
      if (options.removeUndefinedValues === true) continue;
      return convertToAttr(list, options);
    }
    converted.push(toAttributeValue(value, options));
  }
  return { L: converted };
}

export { isPlainRecord, toAttributeMap, toAttributeValue };
