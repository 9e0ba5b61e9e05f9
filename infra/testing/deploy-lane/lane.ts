import { dirname } from 'node:path';
import { CloudFormationClient, ListStackResourcesCommand } from '@aws-sdk/client-cloudformation';
import { cdk, cdkArgs, cdkBootstrap, type LaneStack } from './cdk.js';
import { deployToMoto } from './moto-deploy.js';

/** Where the lane deploys: moto's server (CI) or a real account (`npm run test:aws`); the code is the same. */
interface Lane {
  readonly kind: 'moto' | 'aws';
  readonly stack: LaneStack;
  /** The environment of every child (cdk, the CLI): credentials, region, and on moto AWS_ENDPOINT_URL. */
  readonly env: NodeJS.ProcessEnv;
  /** The cloud assembly directory `cdk synth` writes and `cdk deploy --app` reads. */
  readonly assembly: string;
}

/** Runs `step`, then logs how long it took as `[deploy-lane] <label> took N s`. */
async function timed<T>(label: string, log: (line: string) => void, step: () => Promise<T>): Promise<T> {
  const started = Date.now();
  const result = await step();
  log(`[deploy-lane] ${label} took ${Math.round((Date.now() - started) / 1000)} s`);
  return result;
}

/**
 * `cdk bootstrap` beside each lane's `cdk synth` (a test stack with fault injection; neither needs the other), then
 * `cdk deploy --app <assembly>` of each in turn; on moto each template is first rewritten for what moto cannot create
 * (moto-deploy.ts). The lanes share one account and region (one bootstrap). A failing step ▶ Error with its output.
 */
async function deployLanes(lanes: readonly Lane[], log: (line: string) => void): Promise<void> {
  const [first] = lanes;
  if (!first) return;
  await Promise.all([
    timed('cdk bootstrap', log, () => cdkBootstrap(first.stack, first.env, dirname(first.assembly))),
    ...lanes.map((lane) =>
      timed(`cdk synth ${lane.stack.stackName}`, log, () => cdk(cdkArgs('synth', lane.stack, lane.assembly), lane.env)),
    ),
  ]);
  for (const lane of lanes) {
    await timed(`cdk deploy ${lane.stack.stackName}`, log, () =>
      lane.kind === 'moto'
        ? deployToMoto(lane.stack, lane.assembly, lane.env)
        : cdk(cdkArgs('deploy', lane.stack, lane.assembly), lane.env),
    );
  }
}

/** deployLanes of one lane. */
function deployLane(lane: Lane, log: (line: string) => void): Promise<void> {
  return deployLanes([lane], log);
}

/** `cdk destroy` of the lane's stack (its tables go with it: a test stack is synthesized with RemovalPolicy.DESTROY). */
async function destroyLane(lane: Lane): Promise<void> {
  await cdk(cdkArgs('destroy', lane.stack, lane.assembly), lane.env);
}

/** Resources of the stack not CREATE_COMPLETE, as `type id status`; [] when all are (the CLI's word is not enough). */
async function incompleteResources(stackName: string): Promise<string[]> {
  const cloudformation = new CloudFormationClient({});
  const incomplete: string[] = [];
  let token: string | undefined;
  try {
    do {
      const page = await cloudformation.send(new ListStackResourcesCommand({ StackName: stackName, NextToken: token }));
      for (const resource of page.StackResourceSummaries ?? []) {
        if (resource.ResourceStatus !== 'CREATE_COMPLETE') {
          incomplete.push(`${resource.ResourceType} ${resource.LogicalResourceId} ${resource.ResourceStatus}`);
        }
      }
      token = page.NextToken;
    } while (token);
  } finally {
    cloudformation.destroy();
  }
  return incomplete;
}

export { deployLane, deployLanes, destroyLane, incompleteResources, type Lane, timed };
