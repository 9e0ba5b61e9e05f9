import { memoizeBounded } from '../internal/memoize.js';

/** `#name` with every character a placeholder cannot hold replaced; memoised, as the same names recur on every job. */
const placeholderFor = memoizeBounded((segment) => `#${segment.replace(/[^A-Za-z0-9_]/g, '_')}`, 512);

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
    const placeholder = `:v${this.valueCount}`;
    this.values[placeholder] = value;
    return placeholder;
  }

  /** `SET a = :v, …` plus `REMOVE …` for the given assignments and removals. */
  update(assignments: Record<string, unknown>, removals: readonly string[] = [], raw: readonly string[] = []): string {
    const sets = [
      ...Object.entries(assignments)
        .filter(([, value]) => value !== undefined)
        .map(([path, value]) => `${this.name(path)} = ${this.value(value)}`),
      ...raw,
    ];
    const parts: string[] = [];
    if (sets.length > 0) parts.push(`SET ${sets.join(', ')}`);
    if (removals.length > 0) parts.push(`REMOVE ${removals.map((path) => this.name(path)).join(', ')}`);
    return parts.join(' ');
  }

  /** The names/values maps, omitting empty ones (DynamoDB rejects empty maps). */
  attributes(): {
    ExpressionAttributeNames?: Record<string, string>;
    ExpressionAttributeValues?: Record<string, unknown>;
  } {
    return {
      ...(Object.keys(this.names).length > 0 ? { ExpressionAttributeNames: this.names } : {}),
      ...(Object.keys(this.values).length > 0 ? { ExpressionAttributeValues: this.values } : {}),
    };
  }
}

export { ExpressionBuilder };
