import * as z from 'zod/mini';
import type { JobIdentity } from '../../lib/identity.js';
import { defineJob } from '../../lib/job-definition.js';

/**
 * Statement publication (class B, the seed's account-42 example): the job writes the statement object, then the
 * small pointer that publishes it, both fenced by writer_epoch, so an older claim can never replace what a newer
 * one wrote, however late it wakes up. Both records are keyed by the operation (class B records are owned by ONE
 * operation): two operations publishing the same account and date each get their own records instead of being
 * refused by each other's fence; a pointer shared by operations would need class A. What each write stores is
 * derived from the payload alone, so a retry after a crash rewrites the same statement instead of publishing a
 * second one.
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
    recordTables: [tableName],
    payload: z.strictObject({
      accountId: z.string().check(z.minLength(1), z.maxLength(64)),
      date: z.iso.date(),
      lines: z.int().check(z.gte(0), z.lte(10_000)),
    }),
    run: async (ctx) => {
      const base = statementRecordKey(ctx.identity);
      const objectKey = `${base}#object`;
      await ctx.records.put({ tableName, key: { pk: objectKey, sk: 'object' } }, { lines: ctx.payload.lines });
      ctx.progress();
      await ctx.records.write(
        { tableName, key: { pk: base, sk: 'pointer' } },
        { set: { current: objectKey, accountId: ctx.payload.accountId, date: ctx.payload.date } },
      );
      return { outcomeCode: 'published', result: { objectKey } };
    },
  });
}

/** Partition key of the records one statement operation owns: its pointer and its statement object. */
function statementRecordKey(identity: JobIdentity): string {
  return `statement#${identity.tenantId}#${identity.operationId}`;
}

export { statementPublicationJob, statementRecordKey };
