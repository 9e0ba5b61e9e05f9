import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import canonicalize from 'canonicalize';
import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../../lib/errors.js';
import { canonicalJson, payloadHash } from '../../../lib/hashing.js';
import { parseIdentity } from '../../../lib/identity.js';
import { envelopeJsonSchema } from '../../../lib/messaging/contract.js';
import { parseEnvelope } from '../../../lib/messaging/envelope.js';
import { messageGroupOf } from '../../../lib/messaging/message-group.js';
import { payloadKey, TENANT_BUCKETS, tenantBucketOf, workItemKey } from '../../../lib/store/table.js';
import { expectThrown } from '../../support/expectations.js';
import { producerVectors } from '../../support/producer-vectors.js';
import { ENVELOPE_SCHEMA_FILE } from '../../support/write-contract.js';

const vectors = producerVectors();
const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

describe('the published envelope schema (schema/envelope.schema.json)', () => {
  it('is the JSON Schema zod generates from the envelope schema the worker parses with (npm run contract rewrites it)', () => {
    const published = JSON.parse(readFileSync(ENVELOPE_SCHEMA_FILE, 'utf8'));

    expect(published).toEqual(envelopeJsonSchema());
  });

  it('names every field the worker requires and allows no other', () => {
    const schema = envelopeJsonSchema() as { required: string[]; additionalProperties: boolean };
    const body = {
      v: 1,
      kind: 'job',
      tenantId: 'acme',
      operationId: 'refund-r_815',
      jobType: 'refund-settlement',
      payloadHash: 'a'.repeat(64),
      payload: { inline: true },
    };

    expect(parseEnvelope(JSON.stringify(body)).ok).toBe(true);
    for (const field of schema.required) {
      const { [field]: _dropped, ...without } = body as Record<string, unknown>;
      expect(parseEnvelope(JSON.stringify(without)).ok, field).toBe(false);
    }
    expect(schema.additionalProperties).toBe(false);
    expect(parseEnvelope(JSON.stringify({ ...body, extra: 1 })).ok).toBe(false);
  });
});

describe('the shared producer test vectors (schema/test-vectors.json)', () => {
  it.each(vectors.payloads.map((vector) => [vector.name, vector] as const))(
    'payload %s: canonical JSON and hash as the library computes them',
    (_name, vector) => {
      const parsed = JSON.parse(vector.json) as unknown;

      expect(canonicalJson(parsed)).toBe(vector.canonical);
      expect(payloadHash(parsed)).toBe(vector.payloadHash);
    },
  );

  it('are right independently of the library: another RFC 8785 implementation and plain SHA-256 agree', () => {
    for (const vector of vectors.payloads) {
      expect(canonicalize(JSON.parse(vector.json)), vector.name).toBe(vector.canonical);
      expect(sha256(vector.canonical), vector.name).toBe(vector.payloadHash);
    }
  });

  it.each(vectors.rejectedPayloads.map((vector) => [vector.name, vector] as const))(
    'rejected payload %s: no canonical form, a typed error',
    (_name, vector) => {
      expectThrown(() => canonicalJson(JSON.parse(vector.json)), InvalidInputError);
    },
  );

  it.each(vectors.identities.map((vector) => [`${vector.tenantId}/${vector.operationId}`, vector] as const))(
    'identity %s: bucket and keys as the store writes them, message group as every sender sets it',
    (_name, vector) => {
      const identity = parseIdentity({ tenantId: vector.tenantId, operationId: vector.operationId });

      expect(TENANT_BUCKETS).toBe(vectors.tenantBuckets);
      expect(tenantBucketOf(identity)).toBe(vector.bucket);
      expect(workItemKey(identity)).toEqual({ pk: vector.pk, sk: vector.workItemSk });
      expect(payloadKey(identity)).toEqual({ pk: vector.pk, sk: vector.payloadSk });
      expect(messageGroupOf(identity.tenantId)).toBe(vector.messageGroupId);
    },
  );

  it.each(vectors.rejectedIdentities.map((vector) => [vector.field, vector] as const))(
    'rejected identity (bad %s): a typed error naming the field',
    (_field, vector) => {
      const error = expectThrown(
        () => parseIdentity({ tenantId: vector.tenantId, operationId: vector.operationId }),
        InvalidInputError,
      );

      expect(error.issues.map((issue) => issue.path)).toEqual([vector.field]);
    },
  );
});
