import { Logger } from '@aws-lambda-powertools/logger';
import type { LambdaFunctionURLEventWithIAMAuthorizer, LambdaFunctionURLResult } from 'aws-lambda';
import type { AdminDeps } from '../admin/deps.js';
import { type AdminResponse, handleAdminRequest } from '../admin/router.js';
import { type LeasefenceConfig, readConfig } from '../config.js';
import { ConfigurationError } from '../errors.js';
import { hashIdentifier, type IdentifierKey } from '../hashing.js';
import { serviceName } from '../metric-names.js';
import { createHandlerClients } from './clients.js';
import { identifierKeyLoader, type LoadedIdentifierKey } from './identifier-key.js';
import { describeError } from './sweeper-handler.js';

/** Options of the admin handler; everything defaults to the Lambda environment. */
interface AdminHandlerOptions {
  /** Defaults to readConfig(process.env); must name the queue (retry and redrive send to it). */
  config?: LeasefenceConfig;
}

/** The Function URL handler of the admin API. */
type AdminHandler = (event: LambdaFunctionURLEventWithIAMAuthorizer) => Promise<LambdaFunctionURLResult>;

function json(statusCode: number, body: Record<string, unknown>): LambdaFunctionURLResult {
  return { statusCode, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) };
}

function requestBody(event: LambdaFunctionURLEventWithIAMAuthorizer): string | undefined {
  if (event.body === undefined) return undefined;
  return event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
}

function logFields(response: AdminResponse, actor: string, key: IdentifierKey): Record<string, unknown> {
  const { tenantId, operationId } = response.subject ?? {};
  return {
    route: response.route ?? 'unmatched',
    statusCode: response.statusCode,
    actor: hashIdentifier(actor, key),
    ...(tenantId ? { tenant: hashIdentifier(tenantId, key) } : {}),
    ...(operationId ? { operation: hashIdentifier(operationId, key) } : {}),
  };
}

/**
 * Builds the admin Lambda handler behind a Function URL with AWS_IAM auth. The actor is the IAM caller the
 * URL authenticated (requestContext.authorizer.iam.userArn), never anything in the request; a request
 * without one is refused (403) rather than served anonymously. Logs carry identifiers hashed under the
 * deployment's key only (read once per container; an unreadable key is a 500 before anything is done).
 * @example
 * export const handler = createAdminHandler();
 */
function createAdminHandler(options: AdminHandlerOptions = {}): AdminHandler {
  const logger = new Logger({ serviceName: serviceName() });
  let container: { deps: AdminDeps; loadKey: () => Promise<LoadedIdentifierKey> } | undefined;

  const boot = (): { deps: AdminDeps; loadKey: () => Promise<LoadedIdentifierKey> } => {
    const config = options.config ?? readConfig();
    if (!config.queueUrl) throw new ConfigurationError('LEASEFENCE_QUEUE_URL is required by the admin API');
    const { client, sqs, store } = createHandlerClients(config);
    const deps = {
      store,
      sqs,
      recordClient: client,
      queueUrl: config.queueUrl,
      payloadsTable: config.payloadsTable,
      ...(config.deadLetterQueueUrl ? { deadLetterQueueUrl: config.deadLetterQueueUrl } : {}),
    };
    return { deps, loadKey: identifierKeyLoader(config) };
  };

  return async (event) => {
    const actor = event.requestContext?.authorizer?.iam?.userArn;
    if (typeof actor !== 'string' || actor === '') {
      logger.warn('admin request without an IAM caller');
      return json(403, { error: 'forbidden', message: 'an IAM-authenticated caller is required' });
    }
    let key: IdentifierKey;
    try {
      container ??= boot();
      key = (await container.loadKey()).key;
    } catch (error) {
      logger.error('admin function is misconfigured', { error: describeError(error) });
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
      container.deps,
    );
    if (response.error !== undefined) {
      logger.error('admin request failed', {
        ...logFields(response, actor, key),
        error: describeError(response.error),
      });
    } else {
      logger.info('admin request', logFields(response, actor, key));
    }
    return json(response.statusCode, response.body);
  };
}

export { type AdminHandler, type AdminHandlerOptions, createAdminHandler };
