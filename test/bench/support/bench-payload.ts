// The bench job's type and payload, apart from jobs.ts (which builds the classic schema and the messages), so a
// handler bundle built from this module holds no classic zod: figure 5's zod/mini row (bench-payload-mini.ts).

/** The job type both systems run. */
const BENCH_JOB_TYPE = 'bench-job';

/** A small business command, the size of a typical job payload (~200 bytes of JSON). */
interface BenchPayload {
  orderId: string;
  amountCents: number;
  currency: string;
  lines: Array<{ sku: string; quantity: number }>;
}

/** The payload of an operation, derived from its id, so a payloadRef resolver needs no storage. */
function benchPayload(operationId: string): BenchPayload {
  const seed = operationId.length;
  return {
    orderId: `order-${operationId}`,
    amountCents: 1_000 + seed,
    currency: 'EUR',
    lines: [
      { sku: 'sku-001', quantity: 1 + (seed % 3) },
      { sku: 'sku-002', quantity: 2 },
    ],
  };
}

/** The resolver's half of payloadRefFor: recomputes the body from the ref (no I/O, no growing map). */
function resolveBenchRef(ref: string): BenchPayload | undefined {
  return ref.startsWith('bench:') ? benchPayload(ref.slice('bench:'.length)) : undefined;
}

export { BENCH_JOB_TYPE, type BenchPayload, benchPayload, resolveBenchRef };
