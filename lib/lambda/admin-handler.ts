import { Logger } from '@aws-lambda-powertools/logger';
import type { LambdaFunctionURLEventWithIAMAuthorizer, LambdaFunctionURLResult } from 'aws-lambda';
import type { AdminDeps } from '../admin/deps.js';
import { malformedPathReply, pathProblem } from '../admin/request-target.js';
import { type AdminResponse, handleAdminRequest } from '../admin/router.js';
import { type LeasefenceConfig, readConfig } from '../config.js';
import { ConfigurationError } from '../errors.js';
import { hashIdentifier, type IdentifierKey } from '../hashing.js';
import { serviceName } from '../metric-names.js';
import type { CallerIdentity } from '../store/index.js';
import { createHandlerClients, lazySqsClient } from './clients.js';
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

/**
 * The IAM caller the Function URL authenticated: its ARN and, audited beside it, its account, unique user id and
 * access key id. Undefined when any is missing (not a Function URL event with AWS_IAM auth).
 */
function authenticatedCaller(
  event: LambdaFunctionURLEventWithIAMAuthorizer,
): { actor: string; caller: CallerIdentity } | undefined {
  const iam = event.requestContext?.authorizer?.iam;
  const fields = [iam?.userArn, iam?.accountId, iam?.userId, iam?.accessKey];
  if (!iam || fields.some((field) => typeof field !== 'string' || field === '')) return undefined;
  return { actor: iam.userArn, caller: { accountId: iam.accountId, userId: iam.userId, accessKeyId: iam.accessKey } };
}

function logFields(response: AdminResponse, actor: string, key: IdentifierKey): Record<string, unknown> {
  const { tenantId, operationId } = response.subject ?? {};
  return {
    route: response.route ?? 'unmatched',
    statusCode: response.statusCode,
    actor: hashIdentifier(actor, key),
    ...(tenantId ? { tenant: hashIdentifier(tenantId, key) } : {}),
    ...(operationId ? { operation: hashIdentifier(operationId, key) } : {}),
    // A refused decision says why (a code, nothing from the request): an operator finds refused approvals here.
    ...(typeof response.body?.refusal === 'string' ? { refusal: response.body.refusal } : {}),
  };
}

/**
 * Builds the admin Lambda handler behind a Function URL with AWS_IAM auth. The actor is the IAM caller the
 * URL authenticated (requestContext.authorizer.iam: userArn, with accountId, userId and accessKey audited beside
 * it), never anything in the request body; a request without them is refused (403) rather than served
 * anonymously. The event is trusted as the URL delivered it: a principal allowed plain lambda:InvokeFunction could
 * hand-make one, which the construct's adminInvokeGuard denies (infra/README.md). Routes with an allowlist
 * (LEASEFENCE_ADMIN_ROUTE_PRINCIPALS) answer only the principals it names (403). A malformed rawPath (`//…`, an empty or
 * dot segment, an encoded slash: request-target.ts) is a 400 before any routing. Logs carry identifiers hashed under the
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
    const { client, store } = createHandlerClients(config);
    const deps = {
      store,
      // Loaded by the first route that sends or reads a queue (retry, approve, raise-fences, counts, redrive).
      sqs: lazySqsClient(config),
      recordClient: client,
      queueUrl: config.queueUrl,
      payloadsTable: config.payloadsTable,
      ...(config.deadLetterQueueUrl ? { deadLetterQueueUrl: config.deadLetterQueueUrl } : {}),
      ...(config.adminRoutePrincipals ? { routePrincipals: config.adminRoutePrincipals } : {}),
      ...(config.senderTenants ? { senderTenants: config.senderTenants } : {}),
      ...(config.workerMaxRunMs !== undefined ? { workerMaxRunMs: config.workerMaxRunMs } : {}),
    };
    return { deps, loadKey: identifierKeyLoader(config) };
  };

  return async (event) => {
    const who = authenticatedCaller(event);
    if (!who) {
      logger.warn('admin request without an IAM caller');
      return json(403, { error: 'forbidden', message: 'an IAM-authenticated caller is required' });
    }
    const { actor, caller } = who;
    let key: IdentifierKey;
    try {
      container ??= boot();
      key = (await container.loadKey()).key;
    } catch (error) {
      logger.error('admin function is misconfigured', { error: describeError(error) });
      return json(500, { error: 'configuration', message: 'the admin function is misconfigured; see its logs' });
    }
    // rawPath as sent: `//health`, `a//b`, dot segments and encoded slashes are a 400 before any routing.
    const problem = pathProblem(event.rawPath ?? '');
    const response: AdminResponse =
      problem !== undefined
        ? malformedPathReply(problem)
        : await handleAdminRequest(
            {
              method: event.requestContext.http.method,
              path: event.rawPath,
              query: event.queryStringParameters ?? {},
              body: requestBody(event),
              actor,
              caller,
            },
            { ...container.deps, identifierKey: key },
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
