import * as z from 'zod/mini';
import { defineJob, type JobContext } from '../../lib/job-definition.js';
import { SimulatedGateway } from './simulated-gateway.js';

const refundPayload = z.strictObject({
  merchantId: z.string().check(z.minLength(1), z.maxLength(64)),
  amount: z.number().check(z.positive(), z.lte(1_000_000)),
  currency: z.enum(['EUR', 'USD', 'GBP']),
});

type RefundPayload = z.infer<typeof refundPayload>;
type RefundContext = JobContext<RefundPayload, SimulatedGateway>;

/** The refund row this operation owns (class B): keyed by the operation's identity. */
function refundRecord(tableName: string, ctx: RefundContext) {
  return { tableName, key: { pk: `refund#${ctx.identity.tenantId}#${ctx.identity.operationId}`, sk: 'refund' } };
}

/**
 * pending ▶ sending under my fence, before the provider is called; a row stamped by a lower fence is taken over.
 * `run` refuses a row already sent; reconcile (the provider holds the refund) also takes over a sent one: an attempt
 * that crashed after confirming, before its completion, left it sent, and the retry re-confirms the same refund.
 */
async function stampSending(tableName: string, ctx: RefundContext, alsoSent = false): Promise<void> {
  await ctx.records.stamp(refundRecord(tableName, ctx), {
    ...(alsoSent ? {} : { where: { status: { ne: 'sent' } } }),
    set: { status: 'sending', amount: ctx.payload.amount },
  });
}

/** sending ▶ sent, only while my fence is the one that stamped the row. */
async function confirmSent(tableName: string, ctx: RefundContext, gatewayRef: string): Promise<void> {
  await ctx.records.confirm(refundRecord(tableName, ctx), {
    where: { status: 'sending' },
    set: { status: 'sent', gatewayRef },
  });
}

/**
 * Refund settlement (the seed's r_815 example): the refund row is fenced (class B) and the provider call is
 * deduplicated by the tenant-scoped idempotency key (class C). A retry first looks the refund up by that key.
 */
function refundSettlementJob(tableName: string) {
  return defineJob({
    type: 'refund-settlement',
    version: 1,
    target: 'C',
    maxAttempts: 3,
    leaseMs: 30_000,
    owner: 'payments-team',
    alertRoute: 'pagerduty:payments',
    reversibility: 'irreversible',
    recordTables: [tableName],
    payload: refundPayload,
    // The provider is reached only through this declared client, so its calls are observable (and can be
    // made to time out by the conformance harness).
    // The simulated gateway keeps refund keys for 7 days (a real provider documents its window).
    provider: {
      create: ({ client }) => new SimulatedGateway(client, tableName),
      effects: ['refund'],
      keyRetentionMs: 7 * 24 * 60 * 60 * 1000,
    },
    run: async (ctx) => {
      await stampSending(tableName, ctx);
      ctx.progress();
      const refund = await ctx.provider.refund(ctx.idempotencyKey, {
        amount: ctx.payload.amount,
        currency: ctx.payload.currency,
      });
      await confirmSent(tableName, ctx, refund.refundId);
      return { outcomeCode: 'refunded', result: { gatewayRef: refund.refundId } };
    },
    reconcile: async (ctx) => {
      const found = await ctx.provider.lookup(ctx.idempotencyKey);
      if (!found) return { status: 'not_done' };
      await stampSending(tableName, ctx, true);
      await confirmSent(tableName, ctx, found.refundId);
      return {
        status: 'done',
        outcome: { outcomeCode: 'refunded', result: { gatewayRef: found.refundId, reconciled: true } },
      };
    },
  });
}

export { refundSettlementJob };
