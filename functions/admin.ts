import { Logger } from '@aws-lambda-powertools/logger';
import type { LambdaFunctionURLEventWithIAMAuthorizer, LambdaFunctionURLResult } from 'aws-lambda';
import type { AdminDeps } from '../lib/admin/deps.js';
import { type AdminResponse, handleAdminRequest } from '../lib/admin/router.js';
import { readConfig } from '../lib/config.js';
import { ConfigurationError } from '../lib/errors.js';
import { hashIdentifier } from '../lib/hashing.js';
import { createHandlerClients } from '../lib/lambda/clients.js';
import { serviceName } from '../lib/metric-names.js';

/**
 * The admin Lambda behind a Function URL with AWS_IAM auth. The actor is the IAM caller the URL
 * authenticated (requestContext.authorizer.iam.userArn), never anything in the request. Clients are built
 * once per container; logs carry hashed identifiers only, never bodies.
 */

const logger = new Logger({ serviceName: serviceName() });

let deps: AdminDeps | undefined;

function boot(): AdminDeps {
  const config = readConfig();
  if (!config.queueUrl) throw new ConfigurationError('LEASEFENCE_QUEUE_URL is required by the admin API');
  const { sqs, store } = createHandlerClients(config);
  return {
    store,
    sqs,
    queueUrl: config.queueUrl,
    payloadsTable: config.payloadsTable,
    ...(config.deadLetterQueueUrl ? { deadLetterQueueUrl: config.deadLetterQueueUrl } : {}),
  };
}

function json(statusCode: number, body: Record<string, unknown>): LambdaFunctionURLResult {
  return { statusCode, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) };
}

function requestBody(event: LambdaFunctionURLEventWithIAMAuthorizer): string | undefined {
  if (event.body === undefined) return undefined;
  return event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
}

function logFields(response: AdminResponse, actor: string): Record<string, unknown> {
  const { tenantId, operationId } = response.subject ?? {};
  return {
    route: response.route ?? 'unmatched',
    statusCode: response.statusCode,
    actor: hashIdentifier(actor),
    ...(tenantId ? { tenant: hashIdentifier(tenantId) } : {}),
    ...(operationId ? { operation: hashIdentifier(operationId) } : {}),
  };
}

/** Function URL entry point: authenticated caller ▶ pure router ▶ JSON answer. */
async function handler(event: LambdaFunctionURLEventWithIAMAuthorizer): Promise<LambdaFunctionURLResult> {
  const actor = event.requestContext?.authorizer?.iam?.userArn;
  if (typeof actor !== 'string' || actor === '') {
    // The URL uses AWS_IAM auth, so this means a misconfigured URL: refuse rather than act anonymously.
    logger.warn('admin request without an IAM caller');
    return json(403, { error: 'forbidden', message: 'an IAM-authenticated caller is required' });
  }
  try {
    deps ??= boot();
  } catch (error) {
    logger.error('admin function is misconfigured', { error: describe(error) });
    return json(500, { error: 'configuration', message: 'the admin function is misconfigured; see its logs' });
  }
  const response = await handleAdminRequest(
    {
      method: event.requestContext.http.method,
      path: event.rawPath,
      query: event.queryStringParameters ?? {},
      body: requestBody(event),
      actor,
    },
    deps,
  );
  if (response.error !== undefined) {
    logger.error('admin request failed', { ...logFields(response, actor), error: describe(response.error) });
  } else {
    logger.info('admin request', logFields(response, actor));
  }
  return json(response.statusCode, response.body);
}

/** Error name and message only: no stack, no request data. */
function describe(error: unknown): Record<string, string> {
  return error instanceof Error ? { name: error.name, message: error.message } : { name: typeof error };
}

export { handler };
