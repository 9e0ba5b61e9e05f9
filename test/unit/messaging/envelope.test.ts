import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../../lib/errors.js';
import { payloadHash } from '../../../lib/hashing.js';
import { type JobEnvelope, parseEnvelope, serializeEnvelope } from '../../../lib/messaging/envelope.js';
import { expectThrown } from '../../support/expectations.js';

const goodEnvelope: JobEnvelope = {
  v: 1,
  kind: 'job',
  tenantId: 'acme',
  operationId: 'refund-42',
  jobType: 'refund',
  payloadHash: payloadHash({ amount: 10 }),
  payload: { ref: 's3://bucket/refund-42.json' },
};

/** The identity the good envelope names, as parseEnvelope hands it on with the envelope. */
const goodIdentity = { tenantId: 'acme', operationId: 'refund-42' };

const bodyWith = (changes: Record<string, unknown>, omit: string[] = []) =>
  JSON.stringify(
    Object.fromEntries(Object.entries({ ...goodEnvelope, ...changes }).filter(([key]) => !omit.includes(key))),
  );

describe('parseEnvelope', () => {
  it('accepts a good job envelope by reference, with the identity it names built once and frozen', () => {
    const result = parseEnvelope(JSON.stringify(goodEnvelope));

    expect(result).toEqual({ ok: true, envelope: goodEnvelope, identity: goodIdentity });
    expect(result.ok && Object.isFrozen(result.identity)).toBe(true);
  });

  it('accepts a wake envelope with an inline payload marker', () => {
    const body = bodyWith({ kind: 'wake', payload: { inline: true } });

    const result = parseEnvelope(body);

    expect(result).toEqual({
      ok: true,
      envelope: { ...goodEnvelope, kind: 'wake', payload: { inline: true } },
      identity: goodIdentity,
    });
  });

  it('round-trips through serializeEnvelope', () => {
    expect(parseEnvelope(serializeEnvelope(goodEnvelope))).toEqual({
      ok: true,
      envelope: goodEnvelope,
      identity: goodIdentity,
    });
  });

  it.each(['', 'not json', '{"v":1,', '\u0000'])('reports unparseable for the body %j', (body) => {
    const result = parseEnvelope(body);

    expect(result).toMatchObject({ ok: false, problem: 'unparseable' });
  });

  it.each(['[]', 'null', '42', '"text"'])('reports invalid_envelope for the non-object JSON %s', (body) => {
    expect(parseEnvelope(body)).toMatchObject({ ok: false, problem: 'invalid_envelope' });
  });

  it.each<[string, unknown]>([
    ['a newer version', 2],
    ['version zero', 0],
    ['a string version', '1'],
    ['no version', undefined],
  ])('reports unsupported_version for %s', (_label, version) => {
    const body = version === undefined ? bodyWith({}, ['v']) : bodyWith({ v: version });

    const result = parseEnvelope(body);

    expect(result).toMatchObject({ ok: false, problem: 'unsupported_version' });
  });

  it.each(['kind', 'tenantId', 'operationId', 'jobType', 'payloadHash', 'payload'])(
    'reports invalid_envelope naming the missing field %s',
    (field) => {
      const result = parseEnvelope(bodyWith({}, [field]));

      expect(result).toMatchObject({ ok: false, problem: 'invalid_envelope' });
      if (result.ok) return;
      expect(result.detail).toContain(field);
    },
  );

  it.each<[string, Record<string, unknown>, string]>([
    ['an extra top-level field', { body: { amount: 10 } }, '(root): unrecognized_keys'],
    ['an extra field in payload', { payload: { ref: 'r', inline: true } }, 'payload'],
    ['both payload forms', { payload: { ref: 'r', body: 'x' } }, 'payload'],
    ['inline false', { payload: { inline: false } }, 'payload'],
    ['a bad tenant', { tenantId: 'a#b' }, 'tenantId'],
    ['a bad kind', { kind: 'retry' }, 'kind'],
    ['a bad hash', { payloadHash: 'ABC' }, 'payloadHash'],
  ])('reports invalid_envelope for %s', (_label, changes, field) => {
    const result = parseEnvelope(bodyWith(changes));

    expect(result).toMatchObject({ ok: false, problem: 'invalid_envelope' });
    if (result.ok) return;
    expect(result.detail).toContain(field);
  });
});

describe('serializeEnvelope', () => {
  it('refuses to send an invalid envelope', () => {
    const bad = { ...goodEnvelope, operationId: 'has space' };

    const error = expectThrown(() => serializeEnvelope(bad), InvalidInputError);

    expect(error.issues.map((issue) => issue.path)).toEqual(['operationId']);
  });
});
