import type { TestProject } from 'vitest/node';
import { type RunningEngine, startDynalite, startSqsEngine } from '../../infra/local/engines.js';
import { probeEngine } from './probe.js';

/**
 * Starts the embedded engines once for the whole run (dynalite, fauxqs) on free loopback ports, or uses
 * DYNAMODB_ENDPOINT / SQS_ENDPOINT when set (moto, DynamoDB Local, AWS). Each test file makes its own tables.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  const started: RunningEngine[] = [];
  let dynamoEndpoint = process.env.DYNAMODB_ENDPOINT;
  if (!dynamoEndpoint) {
    const engine = await startDynalite();
    started.push(engine);
    dynamoEndpoint = engine.endpoint;
  }
  let sqsEndpoint = process.env.SQS_ENDPOINT;
  if (!sqsEndpoint) {
    const engine = await startSqsEngine();
    started.push(engine);
    sqsEndpoint = engine.endpoint;
  }
  const capabilities = await probeEngine(dynamoEndpoint);
  const engineName = process.env.DYNAMODB_ENDPOINT ? (process.env.LEASEFENCE_ENGINE_NAME ?? 'external') : 'dynalite';
  console.log(
    `[leasefence tests] DynamoDB engine: ${engineName} at ${dynamoEndpoint} (transactions: ${capabilities.transactions ? 'yes' : 'no'}); SQS engine at ${sqsEndpoint}`,
  );
  project.provide('dynamoEndpoint', dynamoEndpoint);
  project.provide('sqsEndpoint', sqsEndpoint);
  project.provide('engineName', engineName);
  project.provide('transactions', capabilities.transactions);
  return async () => {
    await Promise.all(started.map((engine) => engine.stop()));
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    dynamoEndpoint: string;
    sqsEndpoint: string;
    engineName: string;
    transactions: boolean;
  }
}
