import * as z from 'zod';
import { defineJob } from '../../lib/job-definition.js';

/**
 * Statement publication (class B, the seed's account-42 example): every generation writes an immutable object
 * under its own key; only the small pointer that makes one current is fenced, so an older generation can never
 * replace a newer one, however late it wakes up.
 */
function statementPublicationJob(tableName: string) {
  return defineJob({
    type: 'statement-publication',
    version: 1,
    target: 'B',
    maxAttempts: 3,
    leaseMs: 30_000,
    owner: 'statements-team',
    alertRoute: 'slack:#statements-oncall',
    reversibility: 'reversible',
    payload: z.strictObject({
      accountId: z.string().min(1).max(64),
      date: z.iso.date(),
      lines: z.number().int().min(0).max(10_000),
    }),
    run: async (ctx) => {
      const base = `statement#${ctx.identity.tenantId}#${ctx.payload.accountId}#${ctx.payload.date}`;
      const objectKey = `${base}#generation-${ctx.fence}`;
      await ctx.records.put(
        { tableName, key: { pk: objectKey, sk: 'object' } },
        { lines: ctx.payload.lines, generation: ctx.fence },
      );
      ctx.progress();
      await ctx.records.write(
        { tableName, key: { pk: base, sk: 'pointer' } },
        { set: { current: objectKey, generation: ctx.fence } },
      );
      return { outcomeCode: 'published', result: { objectKey } };
    },
  });
}

export { statementPublicationJob };
