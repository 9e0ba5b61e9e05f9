import type { LambdaFunctionURLEventWithIAMAuthorizer } from 'aws-lambda';

/** The IAM caller the test events authenticate as. */
const TEST_CALLER_ARN = 'arn:aws:iam::123456789012:user/ops-alice';

/** What a test request sets; everything else is filled in as a Function URL with AWS_IAM auth would. */
interface UrlRequest {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  query?: Record<string, string>;
  body?: unknown;
  base64?: boolean;
  callerArn?: string | null;
  /** The caller's unique id (`AIDA…`, `AROA…:session`); default the test user's. */
  userId?: string;
}

/**
 * A Lambda Function URL event (payload format 2.0) as AWS delivers it for an IAM-authenticated caller:
 * rawPath, rawQueryString, requestContext.http and requestContext.authorizer.iam.
 */
function functionUrlEvent(request: UrlRequest): LambdaFunctionURLEventWithIAMAuthorizer {
  const rawQueryString = new URLSearchParams(request.query ?? {}).toString();
  const text =
    request.body === undefined
      ? undefined
      : typeof request.body === 'string'
        ? request.body
        : JSON.stringify(request.body);
  const callerArn = request.callerArn === undefined ? TEST_CALLER_ARN : request.callerArn;
  const event = {
    version: '2.0',
    routeKey: '$default',
    rawPath: request.path,
    rawQueryString,
    headers: {
      'content-type': 'application/json',
      host: 'abcdefghij.lambda-url.eu-west-1.on.aws',
      'x-amzn-trace-id': 'Root=1-65f0c2a1-0123456789abcdef01234567',
    },
    ...(request.query ? { queryStringParameters: request.query } : {}),
    requestContext: {
      accountId: '123456789012',
      apiId: 'abcdefghij',
      domainName: 'abcdefghij.lambda-url.eu-west-1.on.aws',
      domainPrefix: 'abcdefghij',
      http: {
        method: request.method,
        path: request.path,
        protocol: 'HTTP/1.1',
        sourceIp: '203.0.113.7',
        userAgent: 'awscurl/0.33',
      },
      requestId: '5f1c0e8e-1111-2222-3333-444455556666',
      routeKey: '$default',
      stage: '$default',
      time: '01/Jan/2026:00:00:00 +0000',
      timeEpoch: Date.UTC(2026, 0, 1),
      authorizer: {
        iam: {
          accessKey: 'ASIAEXAMPLEKEY000000',
          accountId: '123456789012',
          callerId: 'AIDAEXAMPLECALLER000',
          cognitoIdentity: null,
          principalOrgId: 'o-example000',
          userArn: callerArn,
          userId: request.userId ?? 'AIDAEXAMPLECALLER000',
        },
      },
    },
    ...(text !== undefined ? { body: request.base64 ? Buffer.from(text).toString('base64') : text } : {}),
    isBase64Encoded: request.base64 === true,
  };
  if (callerArn === null) (event.requestContext as { authorizer?: unknown }).authorizer = undefined;
  return event as LambdaFunctionURLEventWithIAMAuthorizer;
}

export { functionUrlEvent, TEST_CALLER_ARN, type UrlRequest };
