import { memoizeBounded } from '../../internal/memoize.js';

/** `#name` with every character a placeholder cannot hold replaced; memoised, as the same names recur on every job. */
const placeholderFor = memoizeBounded((segment) => `#${segment.replace(/[^A-Za-z0-9_]/g, '_')}`, 512);

/** `:v1`…`:v64`, built once: a request rarely has more values, and a longer one builds the rest on the spot. */
const VALUE_PLACEHOLDERS: readonly string[] = Array.from({ length: 65 }, (_, index) => `:v${index}`);

/**
 * Collects attribute names and values for one DynamoDB expression set, so request builders never
 * hand-write placeholders and never collide with reserved words.
 */
class ExpressionBuilder {
  readonly names: Record<string, string> = {};
  readonly values: Record<string, unknown> = {};
  private valueCount = 0;

  /** Placeholder for an attribute path such as `steps.publish` (each segment is named). */
  name(path: string): string {
    if (!path.includes('.')) return this.segment(path);
    return path
      .split('.')
      .map((segment) => this.segment(segment))
      .join('.');
  }

  /** Placeholder for one attribute name or map key taken literally: a `.` in it is part of the name. */
  segment(segment: string): string {
    const placeholder = placeholderFor(segment);
    const existing = this.names[placeholder];
    if (existing !== undefined && existing !== segment) {
      const unique = `${placeholder}_${Object.keys(this.names).length}`;
      this.names[unique] = segment;
      return unique;
    }
    this.names[placeholder] = segment;
    return placeholder;
  }

  /** Placeholder for a value. */
  value(value: unknown): string {
    this.valueCount += 1;
    const placeholder = VALUE_PLACEHOLDERS[this.valueCount] ?? `:v${this.valueCount}`;
    this.values[placeholder] = value;
    return placeholder;
  }

  /** `SET a = :v, …` plus `REMOVE …` for the given assignments and removals. */
  update(assignments: Record<string, unknown>, removals: readonly string[] = [], raw: readonly string[] = []): string {
    // One pass and one string, no intermediate arrays: this runs for every transition of every job.
    let sets = '';
    for (const path of Object.keys(assignments)) {
      const value = assignments[path];
      if (value === undefined) continue;
      sets += `${sets === '' ? 'SET ' : ', '}${this.name(path)} = ${this.value(value)}`;
    }
    for (const clause of raw) sets += `${sets === '' ? 'SET ' : ', '}${clause}`;
    let removed = '';
    for (const path of removals) removed += `${removed === '' ? 'REMOVE ' : ', '}${this.name(path)}`;
    return sets === '' ? removed : removed === '' ? sets : `${sets} ${removed}`;
  }

  /** The names/values maps, omitting empty ones (DynamoDB rejects empty maps). */
  attributes(): {
    ExpressionAttributeNames?: Record<string, string>;
    ExpressionAttributeValues?: Record<string, unknown>;
  } {
    const attributes: {
      ExpressionAttributeNames?: Record<string, string>;
      ExpressionAttributeValues?: Record<string, unknown>;
    } = {};
    for (const _ in this.names) {
      attributes.ExpressionAttributeNames = this.names;
      break;
    }
    if (this.valueCount > 0) attributes.ExpressionAttributeValues = this.values;
    return attributes;
  }
}

export { ExpressionBuilder };
