import * as z from 'zod/mini';
import { defineJob } from '../../lib/job-definition.js';

/**
 * Inventory reservation (class A): the stock count is shared by every order, so it is never guarded by a
 * writer epoch. The decrement and "step reserve done" commit in one transaction conditional on my fence;
 * a holder that takes over sees the step done and does not decrement again.
 */
function inventoryReservationJob(tableName: string) {
  return defineJob({
    type: 'inventory-reservation',
    version: 1,
    target: 'A',
    maxAttempts: 3,
    leaseMs: 30_000,
    owner: 'fulfilment-team',
    alertRoute: 'pagerduty:fulfilment',
    reversibility: 'reversible',
    recordTables: [tableName],
    payload: z.strictObject({
      sku: z.string().check(z.minLength(1), z.maxLength(64)),
      quantity: z.int().check(z.positive(), z.lte(1_000)),
    }),
    run: async (ctx) => {
      const stock = { tableName, key: { pk: `inventory#${ctx.identity.tenantId}#${ctx.payload.sku}`, sk: 'stock' } };
      const step = await ctx.transactions.runStep(
        'reserve',
        [
          {
            kind: 'update',
            ...stock,
            add: { available: -ctx.payload.quantity },
            where: { available: { ge: ctx.payload.quantity } },
          },
        ],
        { result: { sku: ctx.payload.sku, quantity: ctx.payload.quantity } },
      );
      return { outcomeCode: 'reserved', result: { step: step.status } };
    },
  });
}

export { inventoryReservationJob };
