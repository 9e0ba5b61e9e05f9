import type { PutCommandInput } from '@aws-sdk/lib-dynamodb';
import type { Clock } from '../../clock.js';
import { PayloadConflictError } from '../../errors.js';
import { canonicalJson, sha256Hex } from '../../hashing.js';
import { formatIdentity, type JobIdentity, parseIdentity, type ValidIdentity } from '../../identity.js';
import { DAY_MS, RetentionDays } from '../../rules.js';
import { sendConditional } from '../driver/conditional-write.js';
import { sendGet, type TableClient } from '../driver/plain-requests.js';
import { payloadKey, TTL_ATTRIBUTE } from '../table.js';

/** A stored inline payload body and the hash it was stored under. */
interface StoredPayload {
  body: unknown;
  payloadHash: string;
}

/**
 * What an identity's payload slot holds: nothing (never stored, or its retention ran out), a tombstone (the body
 * was erased; the hash stays), or a body with the hash it was stored under (`intact`: the body still hashes to it).
 */
type PayloadSlot =
  | { kind: 'empty' }
  | { kind: 'erased'; payloadHash: string }
  | ({ kind: 'stored' } & StoredPayload & { intact: boolean });

/**
 * Inline payload bodies, kept out of the work row in their own table with a TTL (retention) and erasable
 * per tenant. A body is immutable: storing a different body for an existing identity is a conflict.
 */
class PayloadStore {
  constructor(
    private readonly client: TableClient,
    private readonly tableName: string,
    private readonly clock: Clock,
    /** How long a body is kept past its store (or past the approval window it is kept for). */
    readonly retentionMs = RetentionDays.default * DAY_MS,
  ) {}

  /**
   * Stores the canonical body once; the same hash again is a no-op replay (`erased` when the body was erased:
   * it is not stored again), a different hash a PayloadConflictError, also after an erasure (the tombstone
   * keeps the hash).
   */
  put(identity: JobIdentity, payload: unknown, payloadHash: string): Promise<'stored' | 'replay' | 'erased'> {
    return this.write(parseIdentity(identity), payload, payloadHash);
  }

  /** put, for an identity already parsed at its boundary (the producer's): not checked again. */
  async write(identity: ValidIdentity, payload: unknown, payloadHash: string): Promise<'stored' | 'replay' | 'erased'> {
    const outcome = await sendConditional(this.client, {
      kind: 'put',
      ...this.putRequest(identity, payload, payloadHash),
      ReturnValues: 'ALL_OLD',
    });
    if (outcome.ok) return outcome.attributes ? 'replay' : 'stored';
    if (outcome.current?.payloadHash === payloadHash && outcome.current?.[ERASED_ATTRIBUTE] !== undefined)
      return 'erased';
    throw new PayloadConflictError(
      `${formatIdentity(identity)} already has a different payload stored; nothing was changed`,
      { payloadHash: outcome.current?.payloadHash },
    );
  }

  /**
   * The conditional Put that stores a body once (`write` sends it; a successor's transaction carries it): it
   * passes when no body is stored, or the same hash is and was never erased. Pure.
   */
  putRequest(identity: ValidIdentity, payload: unknown, payloadHash: string): PutCommandInput & { TableName: string } {
    return {
      TableName: this.tableName,
      Item: {
        ...payloadKey(identity),
        body: canonicalJson(payload),
        payloadHash,
        [TTL_ATTRIBUTE]: Math.floor((this.clock.now() + this.retentionMs) / 1000),
      },
      ConditionExpression: 'attribute_not_exists(#pk) OR (#hash = :hash AND attribute_not_exists(#erasedAt))',
      ExpressionAttributeNames: { '#pk': 'pk', '#hash': 'payloadHash', '#erasedAt': ERASED_ATTRIBUTE },
      ExpressionAttributeValues: { ':hash': payloadHash },
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    };
  }

  /**
   * Keeps a stored body (of `payloadHash`, not erased) at least one retention period past `untilMs` (a gated job's
   * approval window): its TTL only ever moves later. One conditional UpdateItem; a slot that is empty, erased or holds
   * another hash is left as it is (false).
   */
  async keepUntil(identity: ValidIdentity, payloadHash: string, untilMs: number): Promise<boolean> {
    const expires = Math.floor((untilMs + this.retentionMs) / 1000);
    const outcome = await sendConditional(this.client, {
      kind: 'update',
      TableName: this.tableName,
      Key: payloadKey(identity),
      UpdateExpression: 'SET #ttl = :ttl',
      ConditionExpression:
        'attribute_exists(#pk) AND #hash = :hash AND attribute_not_exists(#erasedAt) AND (attribute_not_exists(#ttl) OR #ttl < :ttl)',
      ExpressionAttributeNames: {
        '#pk': 'pk',
        '#hash': 'payloadHash',
        '#erasedAt': ERASED_ATTRIBUTE,
        '#ttl': TTL_ATTRIBUTE,
      },
      ExpressionAttributeValues: { ':hash': payloadHash, ':ttl': expires },
    });
    return outcome.ok;
  }

  /** Reads the body and re-checks its hash; undefined when erased or never stored. Bad identity ▶ InvalidInputError. */
  get(identity: JobIdentity): Promise<(StoredPayload & { intact: boolean }) | undefined> {
    return this.read(parseIdentity(identity));
  }

  /** get, for an identity already parsed at its boundary (a claim's): not checked again. */
  async read(identity: ValidIdentity): Promise<(StoredPayload & { intact: boolean }) | undefined> {
    const slot = await this.inspect(identity);
    if (slot.kind !== 'stored') return undefined;
    const { kind: _, ...stored } = slot;
    return stored;
  }

  /**
   * One consistent read of an identity (parsed at its boundary) telling an empty slot from an erased one: a body
   * not stored yet may still arrive (a carried body is stored after its row), an erased one never comes back.
   */
  async inspect(identity: ValidIdentity): Promise<PayloadSlot> {
    const output = await sendGet(this.client, {
      TableName: this.tableName,
      Key: payloadKey(identity),
      ConsistentRead: true,
    });
    const item = output.Item;
    if (!item) return { kind: 'empty' };
    const payloadHash = String(item.payloadHash);
    if (typeof item.body !== 'string') return { kind: 'erased', payloadHash };
    const body = JSON.parse(item.body) as unknown;
    return { kind: 'stored', body, payloadHash, intact: sha256Hex(item.body) === item.payloadHash };
  }
}

/** Set on a payload row whose body was erased: the row is a tombstone keeping the identity's payload hash. */
const ERASED_ATTRIBUTE = 'erasedAt';

export { ERASED_ATTRIBUTE, type PayloadSlot, PayloadStore, type StoredPayload };
