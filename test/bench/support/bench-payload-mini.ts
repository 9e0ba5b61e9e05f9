import * as z from 'zod/mini';

// Its own module: the classic row's bundle (through jobs.ts) must not build this schema at import too.

/**
 * The benchmark's payload schema written with zod/mini: the same checks as `benchPayloadSchema` (jobs.ts, zod
 * classic), for the row of a job module that imports no classic zod.
 */
const benchPayloadMiniSchema = z.strictObject({
  orderId: z.string(),
  amountCents: z.number().check(z.int()),
  currency: z.string().check(z.length(3)),
  lines: z.array(z.strictObject({ sku: z.string(), quantity: z.number().check(z.int(), z.gte(1)) })),
});

export { benchPayloadMiniSchema };
