import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './cli-runner.js';

/** The shared producer test vectors (schema/test-vectors.json): what every producer implementation must reproduce. */
interface ProducerVectors {
  tenantBuckets: number;
  payloads: { name: string; json: string; canonical: string; payloadHash: string }[];
  rejectedPayloads: { name: string; json: string }[];
  identities: {
    tenantId: string;
    operationId: string;
    bucket: number;
    pk: string;
    workItemSk: string;
    payloadSk: string;
    messageGroupId: string;
  }[];
  rejectedIdentities: { tenantId: string; operationId: string; field: 'tenantId' | 'operationId' }[];
  /** SQS message bodies (JSON text) and whether the worker accepts them; the published schema must agree. */
  envelopes: { name: string; body: string; accepted: boolean }[];
}

/** Path of the vectors file the package ships as `leasefence/schema/test-vectors.json`. */
const PRODUCER_VECTORS_FILE = join(ROOT, 'schema', 'test-vectors.json');

/** The vectors, read fresh from the checked-in file. */
function producerVectors(): ProducerVectors {
  return JSON.parse(readFileSync(PRODUCER_VECTORS_FILE, 'utf8')) as ProducerVectors;
}

export { PRODUCER_VECTORS_FILE, type ProducerVectors, producerVectors };
