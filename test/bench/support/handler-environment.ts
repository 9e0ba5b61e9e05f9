import { FUNCTION_NODE_OPTIONS } from '../../../infra/construct/functions.js';

/**
 * What the benchmarked handlers read from the environment at import (never used to reach anything), with the Node
 * flags the construct gives its functions (source maps on), for every bundle alike: the peer and the rules floors are
 * built with the same settings, their source maps included. Figure 5, the import profiles and the init stages use it.
 */
const HANDLER_ENVIRONMENT = {
  NODE_OPTIONS: FUNCTION_NODE_OPTIONS,
  LEASEFENCE_JOBS_TABLE: 'bench-jobs',
  LEASEFENCE_PAYLOADS_TABLE: 'bench-payloads',
  LEASEFENCE_EXAMPLES_TABLE: 'bench-examples',
  LEASEFENCE_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/000000000000/bench-jobs',
  IDEMPOTENCY_TABLE: 'bench-idempotency',
  AWS_LAMBDA_FUNCTION_NAME: 'bench',
  // In Lambda a handler refuses to start without its identifier key secret; import never reads it.
  LEASEFENCE_IDENTIFIER_KEY_SECRET_ARN: 'arn:aws:secretsmanager:us-east-1:000000000000:secret:bench-identifier-key',
} as const;

export { HANDLER_ENVIRONMENT };
