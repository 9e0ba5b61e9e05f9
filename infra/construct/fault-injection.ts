import { type RemovalPolicy, Validations } from 'aws-cdk-lib';
import type * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { EnvironmentVariable, FAULT_LAYER_CONSTANT, FLOW_CONTROL_CONSTANT } from '../../lib/config.js';
import type { DeploymentEnvironment } from './props.js';

/** Environments a stack check may inject faults into (the same that take its test traffic). */
const FAULT_ENVIRONMENTS: readonly DeploymentEnvironment[] = ['test', 'staging'];

/** What the fault-plan secret is made with, and who reads it. */
interface FaultInjectionOptions {
  readonly environment: DeploymentEnvironment;
  readonly removalPolicy: RemovalPolicy;
  readonly encryptionKey?: kms.IKey;
  /** The worker function and its role: the only reader of the plan (it alone honours one). */
  readonly worker: { readonly fn: lambda.Function; readonly role: iam.IRole };
}

/**
 * The construct's `faultInjection` prop: a Secrets Manager secret that holds a stack check's fault plan (generated
 * value: no plan armed until an operator's `check --stack` writes one), its ARN in the worker's
 * LEASEFENCE_FAULT_PLAN_SECRET_ARN, read access for the worker's role only (writing it needs the operator's own
 * credentials). A stack not marked test or staging ▶ Error at synth: production never carries the fault layer's
 * switch.
 */
function enableFaultInjection(scope: Construct, options: FaultInjectionOptions): secretsmanager.Secret {
  if (!FAULT_ENVIRONMENTS.includes(options.environment)) {
    throw new Error(
      `faultInjection: only on a stack marked test or staging (the environment prop), not ${options.environment}: a stack check's faults must never be armable in production`,
    );
  }
  const secret = new secretsmanager.Secret(scope, 'FaultPlan', {
    description: 'leasefence: the fault plan of a running `leasefence check --stack` (test and staging stacks only)',
    generateSecretString: { passwordLength: 32, excludePunctuation: true, includeSpace: false },
    removalPolicy: options.removalPolicy,
    ...(options.encryptionKey ? { encryptionKey: options.encryptionKey } : {}),
  });
  options.worker.fn.addEnvironment(EnvironmentVariable.faultPlanSecretArn, secret.secretArn);
  secret.grantRead(options.worker.role);
  Validations.of(secret).acknowledge({
    id: 'AwsSolutions-SMG4',
    reason: 'A test fault plan a check run writes and disarms, not a credential: nothing to rotate.',
  });
  return secret;
}

/**
 * The worker's build-time constants: without faultInjection the fault layer is left out of its bundle (no bytes, no
 * parse); with it, the layer is bundled and still loaded only on a check run's first record.
 */
function faultLayerDefine(enabled: boolean): Record<string, string> {
  return { [FAULT_LAYER_CONSTANT]: JSON.stringify(enabled ? 'bundled' : 'omitted') };
}

/** Likewise for flow control: without the construct's flowControl the rate gate and budgets room are left out. */
function flowControlDefine(enabled: boolean): Record<string, string> {
  return { [FLOW_CONTROL_CONSTANT]: JSON.stringify(enabled ? 'bundled' : 'omitted') };
}

/** The resolved props the secret is made with. */
function faultOptions(config: {
  environment: DeploymentEnvironment;
  removalPolicy: RemovalPolicy;
  encryptionKey?: kms.IKey | undefined;
}): Omit<FaultInjectionOptions, 'worker'> {
  return {
    environment: config.environment,
    removalPolicy: config.removalPolicy,
    ...(config.encryptionKey ? { encryptionKey: config.encryptionKey } : {}),
  };
}

export { enableFaultInjection, FAULT_ENVIRONMENTS, faultLayerDefine, faultOptions, flowControlDefine };
