/**
 * Figure 5's rules-floor rows (issue #29): SQS handlers holding only what every leasefence Lambda must hold by the
 * project's rules, and no leasefence code (test/bench/bundle/rules-floor*.ts). Named here, apart from the scenario,
 * so the report and its targets can find the rows without importing the bundler.
 */
const RulesFloor = {
  /** zod/mini at the boundary, Powertools Logger + Metrics + batch, and the DocumentClient the worker gives each job. */
  worker: 'rules floor: zod/mini + Powertools + DocumentClient, no leasefence code',
  /** The same with a plain DynamoDB client (no lib-dynamodb): what the sweeper and admin functions could reach. */
  plainClient: 'rules floor, plain DynamoDB client (no lib-dynamodb)',
} as const;

/** The name of a rules-floor row. */
type RulesFloorName = (typeof RulesFloor)[keyof typeof RulesFloor];

export { RulesFloor, type RulesFloorName };
