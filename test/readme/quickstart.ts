// The README's quick-start example, kept here so the typecheck compiles it (a unit test checks the README
// shows this file verbatim between the QUICKSTART markers).
// QUICKSTART:BEGIN
import { createSqsWorkerHandler, defineJob, TerminalJobError } from 'leasefence';
import * as z from 'zod';

// A class B job: it writes one record owned by this operation (keyed by its identity), fenced by writer_epoch.
const publishStatement = defineJob({
  type: 'publish-statement',
  version: 1,
  target: 'B',
  payload: z.strictObject({ accountId: z.string(), date: z.iso.date() }),
  run: async (ctx) => {
    if (ctx.payload.date > '2100-01-01') throw new TerminalJobError('bad_date', 'statement date out of range');
    const objectKey = `statements/${ctx.payload.accountId}/${ctx.payload.date}/generation-${ctx.fence}.pdf`;
    ctx.progress(); // renew the lease only while real work advances
    // Keyed by the operation: a record shared by operations would be refused by their fences (use class A).
    // Rejected with FenceRejectedError (and the job aborted) if a newer claim already wrote the pointer.
    await ctx.records.write(
      { tableName: 'statements', key: { pk: `${ctx.identity.tenantId}#${ctx.identity.operationId}` } },
      { set: { current: objectKey, accountId: ctx.payload.accountId, date: ctx.payload.date } },
    );
    return { outcomeCode: 'published', result: { objectKey } };
  },
});

// The SQS-triggered Lambda: partial batch responses, poison messages quarantined, replays acknowledged.
export const handler = createSqsWorkerHandler({ jobs: [publishStatement] });
// QUICKSTART:END
