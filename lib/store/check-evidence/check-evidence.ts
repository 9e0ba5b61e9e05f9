import * as z from 'zod/mini';
import { InvalidInputError } from '../../errors.js';
import type { JobIdentity } from '../../identity.js';
import { builtOnce } from '../../internal/memoize.js';
import { sendGet, sendPut, sendQuery, type TableClient } from '../driver/plain-requests.js';
import { KeyPrefix, STACK_CHECK_TENANT_PREFIX, TableKeys, TTL_ATTRIBUTE, workItemKey } from '../table.js';

/** Evidence rows expire a day after they were written, whether or not the check's cleanup ran. */
const EVIDENCE_TTL_SECONDS = 86_400;

/** One write the job made to a table other than the library's, as the worker's fault layer saw it. */
const observedWriteSchema = () =>
  z.object({
    table: z.string(),
    call: z.string(),
    fenced: z.boolean(),
    landed: z.boolean(),
    /** Sent after a planned pause ended (the attempt had been superseded by then). */
    afterPause: z.boolean(),
    /** Sent by the job's declared provider client (a class C/D provider's own storage is the external system). */
    provider: z.optional(z.boolean()),
  });

/** One call to the declared provider's effect methods that returned (the provider holds its effect). */
const observedEffectSchema = () =>
  z.object({
    method: z.string(),
    /** It carried the operation's ctx.idempotencyKey (class C: one effect per key, however often it is called). */
    keyed: z.boolean(),
  });

/**
 * What one attempt of a check run's message did inside the deployed worker: the fault the plan armed and whether
 * it fired, the runtime's result (or that the record was left for redelivery), the job's writes to its own tables,
 * and log fields that carried a raw tenant id. Written by the worker's fault layer only; read by `check --stack`.
 */
const checkEvidenceSchema = builtOnce(() =>
  z.object({
    messageId: z.string(),
    receiveCount: z.number(),
    fault: z.string(),
    fired: z.boolean(),
    /** `acked:<result>` per copy handled (a duplicate-delivery plan handles several), or `not acked:<error>`. */
    outcomes: z.array(z.string()),
    writes: z.array(observedWriteSchema()),
    /** Telemetry events of the attempt that carried the raw tenant id or a payload body. */
    leaks: z.array(z.string()),
    telemetryEvents: z.number(),
    /** Epoch ms when a planned pause ended (absent: no pause fired). */
    resumedAt: z.optional(z.number()),
    /** The provider effect calls of the attempt that returned (absent: a worker older than this field). */
    effects: z.optional(z.array(observedEffectSchema())),
  }),
);

type CheckEvidenceRecord = z.infer<ReturnType<typeof checkEvidenceSchema>>;
type ObservedWrite = z.infer<ReturnType<typeof observedWriteSchema>>;
type ObservedEffect = z.infer<ReturnType<typeof observedEffectSchema>>;

/** The check's own tenants only: a real tenant never gets an evidence row. */
function refuseForeign(identity: JobIdentity): void {
  if (identity.tenantId.startsWith(STACK_CHECK_TENANT_PREFIX)) return;
  throw new InvalidInputError('check evidence: only a stack check tenant has evidence rows', [
    { path: 'tenantId', message: `must start with ${STACK_CHECK_TENANT_PREFIX}` },
  ]);
}

const sortPrefix = (identity: JobIdentity) => `${KeyPrefix.checkEvidence}${identity.operationId}#`;

/**
 * The evidence rows of a stack check's fault run, beside the work row of the identity they concern (same
 * partition, `check#<operation>#<message>#<receive>` sort keys, a day's TTL). Only tenants under
 * STACK_CHECK_TENANT_PREFIX ▶ InvalidInputError for any other, nothing written or read.
 */
class CheckEvidence {
  constructor(
    private readonly client: TableClient,
    private readonly jobsTable: string,
    private readonly now: () => number = Date.now,
  ) {}

  /** Stores one attempt's evidence (an overwrite of the same message and receive count replaces it). */
  async record(identity: JobIdentity, evidence: CheckEvidenceRecord): Promise<void> {
    refuseForeign(identity);
    const { pk } = workItemKey(identity);
    await sendPut(this.client, {
      TableName: this.jobsTable,
      Item: {
        [TableKeys.partition]: pk,
        [TableKeys.sort]: `${sortPrefix(identity)}${evidence.messageId}#${evidence.receiveCount}`,
        tenantId: identity.tenantId,
        ...checkEvidenceSchema().parse(evidence),
        [TTL_ATTRIBUTE]: Math.floor(this.now() / 1000) + EVIDENCE_TTL_SECONDS,
      },
    });
  }

  /** Every evidence row of the identity (a consistent Query of its partition); rows that do not parse are skipped. */
  async list(identity: JobIdentity): Promise<CheckEvidenceRecord[]> {
    refuseForeign(identity);
    const rows = await this.keysAndItems(identity);
    return rows.flatMap(({ item }) => {
      const parsed = checkEvidenceSchema().safeParse(item);
      return parsed.success ? [parsed.data] : [];
    });
  }

  /**
   * The fence of the identity's work row now (a consistent read of that one attribute), 0 when there is no row: the
   * fault layer's paused attempt waits for a takeover to raise it. Only a check tenant's row ▶ else InvalidInputError.
   */
  async workFence(identity: JobIdentity): Promise<number> {
    refuseForeign(identity);
    const found = await sendGet(this.client, {
      TableName: this.jobsTable,
      Key: workItemKey(identity),
      ConsistentRead: true,
      ProjectionExpression: '#fence',
      ExpressionAttributeNames: { '#fence': 'fence' },
    });
    return Number(found.Item?.fence ?? 0);
  }

  /** The keys of the identity's evidence rows (the check's cleanup deletes them). */
  async keys(identity: JobIdentity): Promise<Array<{ pk: string; sk: string }>> {
    refuseForeign(identity);
    return (await this.keysAndItems(identity)).map(({ key }) => key);
  }

  private async keysAndItems(identity: JobIdentity) {
    const { pk } = workItemKey(identity);
    const found: Array<{ key: { pk: string; sk: string }; item: Record<string, unknown> }> = [];
    let start: Record<string, unknown> | undefined;
    do {
      const page = await sendQuery(this.client, {
        TableName: this.jobsTable,
        ConsistentRead: true,
        KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :prefix)',
        ExpressionAttributeNames: { '#pk': TableKeys.partition, '#sk': TableKeys.sort },
        ExpressionAttributeValues: { ':pk': pk, ':prefix': sortPrefix(identity) },
        ...(start ? { ExclusiveStartKey: start } : {}),
      });
      for (const item of page.Items ?? []) found.push({ key: { pk, sk: String(item[TableKeys.sort]) }, item });
      start = page.LastEvaluatedKey;
    } while (start);
    return found;
  }
}

export { CheckEvidence, type CheckEvidenceRecord, type ObservedEffect, type ObservedWrite };
