import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import { payloadHash } from '../../../lib/hashing.js';
import type { JobIdentity } from '../../../lib/identity.js';
import { type JobEnvelope, serializeEnvelope } from '../../../lib/messaging/envelope.js';
import type { QueueMessage } from '../../../lib/worker/worker-runtime.js';
import { BENCH_JOB_TYPE, type BenchPayload, benchPayload, resolveBenchRef } from './bench-payload.js';

/** The one tenant of the benchmark (tenancy costs nothing extra per request in either system). */
const BENCH_TENANT = 'bench';

/** The payload schema both systems' job validates its payload with (leasefence through the job definition). */
const benchPayloadSchema = z.strictObject({
  orderId: z.string(),
  amountCents: z.number().int(),
  currency: z.string().length(3),
  lines: z.array(z.strictObject({ sku: z.string(), quantity: z.number().int().min(1) })),
});

/** Where a bench message's payload is: a ref, the payloads table, or carried in the message itself. */
type PayloadMode = 'ref' | 'inline' | 'carried';

/** The event the Powertools peer receives: identity and the payload itself (it has no payload store). */
interface PeerJob {
  tenantId: string;
  operationId: string;
  jobType: string;
  payload: BenchPayload;
}

/** A fresh run name: identities of different runs never collide on one table. */
function runName(label: string): string {
  return `${label}-${randomUUID().slice(0, 8)}`;
}

/** Identity of job `index` of run `run`. */
function benchIdentity(run: string, index: number): JobIdentity {
  return { tenantId: BENCH_TENANT, operationId: `${run}-${index}` };
}

/** The payloadRef of an identity; the resolver turns it back into the payload. */
function payloadRefFor(identity: JobIdentity): string {
  return `bench:${identity.operationId}`;
}

/** The queue message the leasefence worker receives for `identity` (a producer's `job`, or a sweeper's `wake`). */
/** A JSON value as the envelope's carried body types it. */
type JsonValue = Extract<JobEnvelope['payload'], { body: unknown }>['body'];

function leasefenceMessage(identity: JobIdentity, mode: PayloadMode, kind: 'job' | 'wake' = 'job'): QueueMessage {
  const envelope: JobEnvelope = {
    v: 1,
    kind,
    ...identity,
    jobType: BENCH_JOB_TYPE,
    payloadHash: payloadHash(benchPayload(identity.operationId)),
    payload:
      mode === 'ref'
        ? { ref: payloadRefFor(identity) }
        : mode === 'carried'
          ? // BenchPayload is plain JSON (an interface, so TypeScript cannot see it as JSONType).
            { body: benchPayload(identity.operationId) as unknown as JsonValue }
          : { inline: true },
  };
  return { messageId: randomUUID(), body: serializeEnvelope(envelope), receiveCount: 1 };
}

/** The peer's event for `identity`: the same identity and payload as the leasefence message. */
function peerJob(identity: JobIdentity): PeerJob {
  return { ...identity, jobType: BENCH_JOB_TYPE, payload: benchPayload(identity.operationId) };
}

/** Key of the side-effect record an operation owns (class B: keyed by the identity). */
function sideEffectKey(identity: JobIdentity): { pk: string } {
  return { pk: `${identity.tenantId}#${identity.operationId}` };
}

export {
  BENCH_JOB_TYPE,
  BENCH_TENANT,
  type BenchPayload,
  benchIdentity,
  benchPayload,
  benchPayloadSchema,
  leasefenceMessage,
  type PayloadMode,
  type PeerJob,
  payloadRefFor,
  peerJob,
  resolveBenchRef,
  runName,
  sideEffectKey,
};
