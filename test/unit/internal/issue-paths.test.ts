import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { describeIssues } from '../../../lib/internal/issue-paths.js';
import { parseEnvelope } from '../../../lib/messaging/envelope.js';

const SECRET = 'alice.smith@example.com';

describe('validation details hold codes and schema paths only', () => {
  const schema = z.strictObject({
    tags: z.record(z.string(), z.number()),
    lines: z.array(z.strictObject({ amount: z.number() })).optional(),
    payload: z.union([z.strictObject({ ref: z.string() }), z.strictObject({ inline: z.literal(true) })]),
  });

  it('keeps declared keys and indexes, masks keys the input chose, never quotes a message', () => {
    const parsed = schema.safeParse({
      tags: { [SECRET]: 'x' },
      lines: [{ amount: SECRET }],
      payload: { [SECRET]: 1 },
      [SECRET]: 2,
    });
    if (parsed.success) throw new Error('expected a failure');

    const detail = describeIssues(schema, parsed.error.issues);

    expect(detail).toBe(
      'tags.*: invalid_type; lines.0.amount: invalid_type; payload: invalid_union; (root): unrecognized_keys',
    );
    expect(detail).not.toContain('alice');
  });

  it.each([
    ['not JSON', SECRET],
    ['an unknown key', JSON.stringify({ v: 1, kind: 'job', [SECRET]: true })],
    ['a bad value', JSON.stringify({ v: 1, kind: SECRET })],
    ['a version string', JSON.stringify({ v: SECRET })],
  ])('a message with %s is described without any of its text', (_label, body) => {
    const result = parseEnvelope(body);

    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.detail).not.toMatch(/alice|smith|example/);
  });

  it('walks a lazy schema through the inner schema zod built, never building another copy', () => {
    let builds = 0;
    const lazy = z.lazy(() => {
      builds += 1;
      return z.strictObject({ lines: z.array(z.strictObject({ amount: z.number() })) });
    });
    const parsed = lazy.safeParse({ lines: [{ amount: SECRET }], [SECRET]: 1 });
    if (parsed.success) throw new Error('expected a failure');

    expect(describeIssues(lazy, parsed.error.issues)).toBe('lines.0.amount: invalid_type; (root): unrecognized_keys');
    expect(builds).toBe(1);
  });
});
