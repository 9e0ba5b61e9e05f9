/**
 * AWS's documented limits the capacity model (capacity-model.ts) computes from, each with the page it was read on
 * and the date: docs/SCALE.md's limits table is generated from this list (test/support/write-scale-doc.ts), so a
 * changed number changes the document and test/unit/docs/scale-doc.test.ts fails until it is regenerated.
 */

/** The day every page below was last read. */
const LIMITS_READ_ON = '2026-12-06';

/** One documented limit: what AWS says, where. */
interface AwsLimit {
  readonly service: string;
  /** The limit in words, as the model uses it. */
  readonly says: string;
  /** The page(s) it was read on. */
  readonly sources: ReadonlyArray<{ readonly title: string; readonly url: string }>;
}

const DDB = 'https://docs.aws.amazon.com/amazondynamodb/latest/developerguide';
const LAMBDA = 'https://docs.aws.amazon.com/lambda/latest/dg';

/** The limits, by the id docs/SCALE.md cites them with (L1…). */
const AWS_LIMITS = {
  L1: {
    service: 'DynamoDB',
    says: 'one partition serves up to 3,000 RRU and 1,000 WRU per second (or a linear mix), on the table and on each GSI alike; keys are placed on partitions by an internal hash of the partition key, so any two keys may share one; a hot partition throttles while the table has room, until split-for-heat divides it (after the throttling starts)',
    sources: [
      { title: 'warm throughput scenarios', url: `${DDB}/warm-throughput-scenarios.html` },
      { title: 'key range throughput exceeded', url: `${DDB}/throttling-key-range-limit-exceeded-mitigation.html` },
      {
        title: 'KeySchemaElement (internal hash of the partition key)',
        url: 'https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_KeySchemaElement.html',
      },
    ],
  },
  L2: {
    service: 'DynamoDB',
    says: 'a GSI has its own partitions and limits; a GSI that cannot take its updates throttles the base table’s writes (back-pressure)',
    sources: [{ title: 'GSI write throttling and back-pressure', url: `${DDB}/gsi-throttling.html` }],
  },
  L3: {
    service: 'DynamoDB on-demand',
    says: 'a new table serves 4,000 WRU and 12,000 RRU per second at once (the model assumes the same of each new GSI, which scales on its own, L2); traffic up to twice the previous peak is served, more than twice the previous peak within 30 minutes may throttle',
    sources: [
      { title: 'on-demand capacity mode', url: `${DDB}/on-demand-capacity-mode.html` },
      { title: 'pre-warming for on-demand', url: `${DDB}/pre-warming-on-demand-capacity-mode.html` },
    ],
  },
  L4: {
    service: 'DynamoDB',
    says: 'warm throughput: what a table or GSI serves instantly; raised ahead of a peak per table and per GSI, never lowered, up to the table-level quota (L5); the default values are free, and a proactive raise is charged for (DynamoDB pricing)',
    sources: [
      { title: 'warm throughput', url: `${DDB}/warm-throughput.html` },
      {
        title: 'CloudFormation WarmThroughput',
        url: 'https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/aws-resource-dynamodb-table.html#cfn-dynamodb-table-warmthroughput',
      },
    ],
  },
  L5: {
    service: 'DynamoDB on-demand',
    says: '40,000 RRU and 40,000 WRU per second per table by default, and the same ceiling for each of its GSIs (table-level quotas; raisable through Service Quotas: “Table-level write throughput limit”, “Table-level read throughput limit”)',
    sources: [
      { title: 'quotas: throughput default quotas', url: `${DDB}/ServiceQuotas.html` },
      { title: 'maximum throughput for on-demand tables', url: `${DDB}/on-demand-capacity-mode-max-throughput.html` },
      { title: 'account limits exceeded', url: `${DDB}/throttling-account-limit-exceeded-mitigation.html` },
    ],
  },
  L6: {
    service: 'SQS standard queue',
    says: 'approximately 120,000 messages in flight; past it the Lambda event source receives nothing and no error; DelaySeconds at most 15 minutes',
    sources: [
      {
        title: 'standard queue quotas',
        url: 'https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/quotas-queues.html',
      },
    ],
  },
  L7: {
    service: 'Lambda + SQS, standard mode',
    says: 'the event source mapping starts with 5 concurrent invokes, adds up to 300 a minute, and reaches up to 1,250 concurrent invokes by default (more through AWS Support); `MaximumConcurrency` 2–1,000, not allowed together with provisioned mode',
    sources: [
      { title: 'scaling of SQS event source mappings', url: `${LAMBDA}/services-sqs-scaling.html` },
      {
        title: 'ScalingConfig',
        url: 'https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-properties-lambda-eventsourcemapping-scalingconfig.html',
      },
    ],
  },
  L8: {
    service: 'Lambda + SQS, provisioned mode',
    says: 'dedicated event pollers, minimum 2–200, maximum 2–2,000 (the CloudFormation range; default 200); each poller handles up to 1 MB/s, 10 concurrent invokes or 10 polls a second; pollers are billed; mutually exclusive with maximum concurrency',
    sources: [
      { title: 'scaling of SQS event source mappings', url: `${LAMBDA}/services-sqs-scaling.html` },
      { title: 'SQS event source mapping parameters', url: `${LAMBDA}/services-sqs-parameters.html` },
      {
        title: 'ProvisionedPollerConfig',
        url: 'https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-properties-lambda-eventsourcemapping-provisionedpollerconfig.html',
      },
    ],
  },
  L9: {
    service: 'Lambda',
    says: 'reserved concurrency may be set up to the account’s unreserved concurrency minus 100; 1,000 concurrent executions per account and Region by default (raisable: “Concurrent executions”)',
    sources: [{ title: 'configuring reserved concurrency', url: `${LAMBDA}/configuration-concurrency.html` }],
  },
  L10: {
    service: 'Lambda',
    says: 'CPU in proportion to memory: one vCPU at 1,769 MB',
    sources: [{ title: 'configuring memory', url: `${LAMBDA}/configuration-memory.html` }],
  },
  L11: {
    service: 'SQS fair queues',
    says: 'tenants are message groups; a tenant is a noisy neighbour when it holds more than 10 % of the queue’s in-flight messages and at least 30 of them (or more than 10 % of recent processing time); its messages then wait while quiet tenants’ are delivered first, never dropped',
    sources: [
      {
        title: 'how fair queues work',
        url: 'https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-fair-queues-detailed.html',
      },
    ],
  },
} as const satisfies Record<string, AwsLimit>;

/** The numbers the model computes with, each tied to its limit above. */
const LIMIT = {
  /** L1: write and read units one partition serves per second. */
  partitionWrite: 1_000,
  partitionRead: 3_000,
  /** L3: what a new on-demand table or GSI serves at once. */
  initialWrite: 4_000,
  initialRead: 12_000,
  /** L3: a new peak may be at most this multiple of the previous one … */
  rampFactor: 2,
  /** … within this many minutes. */
  rampMinutes: 30,
  /** L5: default table-level quota, per table and per GSI. */
  tableQuotaWrite: 40_000,
  tableQuotaRead: 40_000,
  /** L6: SQS in-flight messages of a standard queue. */
  sqsInFlight: 120_000,
  /** L7: standard mode. */
  standardInitialInvokes: 5,
  standardInvokesAddedPerMinute: 300,
  standardMaxInvokes: 1_250,
  maxConcurrencyMin: 2,
  maxConcurrencyMax: 1_000,
  /** L8: provisioned mode. */
  minimumPollersMin: 2,
  minimumPollersMax: 200,
  maximumPollersMin: 2,
  maximumPollersMax: 2_000,
  invokesPerPoller: 10,
  /** L9: account concurrency (default) and the part no reservation may take. */
  accountConcurrency: 1_000,
  unreservedFloor: 100,
  /** L10. */
  mbPerVcpu: 1_769,
  /** L11: noisy tenant: more than this share of in-flight messages … */
  fairShare: 0.1,
  /** … and at least this many of its own. */
  fairMinimumInFlight: 30,
} as const;

export { AWS_LIMITS, type AwsLimit, LIMIT, LIMITS_READ_ON };
