import { existsSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Duration, type RemovalPolicy, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { LogLevel, NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { FLOW_CONTROL_CONSTANT } from '../../lib/config.js';
import { OPENTELEMETRY_API_PACKAGE } from '../../lib/tracing/tracer.js';

/** Root of this package: the nearest folder above this file holding a package.json (a checkout or node_modules/leasefence). */
const PACKAGE_ROOT = findPackageRoot(dirname(fileURLToPath(import.meta.url)));

function findPackageRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return `${dir}${sep}`;
    if (dirname(dir) === dir) return `${from}${sep}`;
  }
}

/**
 * A handler shipped with the package: the TypeScript source in a checkout, the compiled JavaScript in an
 * installed package (dist/functions/NAME.js beside dist/infra/construct/).
 */
function packagedEntry(name: 'sweeper' | 'admin' | 'schedule-tick'): string {
  const source = fileURLToPath(new URL(`../../functions/${name}.ts`, import.meta.url));
  return existsSync(source) ? source : fileURLToPath(new URL(`../../functions/${name}.js`, import.meta.url));
}

/** The generic handlers shipped with the package; the worker entry is always the user's (their job types). */
const PackagedEntry = {
  sweeper: packagedEntry('sweeper'),
  admin: packagedEntry('admin'),
  scheduleTick: packagedEntry('schedule-tick'),
} as const;

/** ESM needs `require` for the few CommonJS dependencies that call it at runtime. */
const ESM_REQUIRE_BANNER =
  "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);";

/**
 * The Node flags every function runs with: source maps on, so a stack trace in the logs names the TypeScript
 * source lines. Node registers each map at import, which the cold start pays (BENCHMARKS.md figure 5 times the
 * bundles with these flags).
 */
const FUNCTION_NODE_OPTIONS = '--enable-source-maps';

/** Where and how to bundle an entry (defaults: this package's lock file when present, else the nearest one). */
interface BundleLocation {
  entry: string;
  depsLockFilePath?: string;
  projectRoot?: string;
}

/** One leasefence function: entry, sizing, environment, logs. */
interface LeasefenceFunctionOptions extends BundleLocation {
  description: string;
  runtime: lambda.Runtime;
  timeout: Duration;
  memorySize: number;
  /** Concurrency reserved for (and capping) this function. */
  reservedConcurrentExecutions: number;
  environment: Record<string, string>;
  logRetention: logs.RetentionDays;
  removalPolicy: RemovalPolicy;
  /** Bundle the AWS SDK (pinned to the lock file) instead of using the one in the Lambda runtime. */
  bundleAwsSdk: boolean;
  /** Build-time constants (esbuild's `define`): code behind a constant that is false is left out of the bundle. */
  define?: Record<string, string>;
}

/** A function with its own role (no managed policies) and its own log group. */
interface LeasefenceFunction {
  fn: NodejsFunction;
  role: iam.Role;
  logGroup: logs.LogGroup;
}

function defaultLockFile(location: BundleLocation): { depsLockFilePath?: string; projectRoot?: string } {
  if (location.depsLockFilePath || location.projectRoot) {
    return {
      ...(location.depsLockFilePath ? { depsLockFilePath: location.depsLockFilePath } : {}),
      ...(location.projectRoot ? { projectRoot: location.projectRoot } : {}),
    };
  }
  const ownLock = `${PACKAGE_ROOT}package-lock.json`;
  return location.entry.startsWith(PACKAGE_ROOT) && existsSync(ownLock)
    ? { depsLockFilePath: ownLock, projectRoot: PACKAGE_ROOT }
    : {};
}

/**
 * A Node.js function bundled locally by esbuild (no Docker): arm64, ESM, minified with names kept (error
 * classes name themselves), source maps, by default the AWS SDK bundled at the version the tests ran.
 * The role starts empty; the caller adds exactly the statements the function needs.
 */
function createLeasefenceFunction(
  scope: Construct,
  id: string,
  options: LeasefenceFunctionOptions,
): LeasefenceFunction {
  const logGroup = new logs.LogGroup(scope, `${id}Logs`, {
    retention: options.logRetention,
    removalPolicy: options.removalPolicy,
  });
  const role = new iam.Role(scope, `${id}Role`, {
    assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
    description: `leasefence ${id}: least-privilege execution role`,
  });
  role.addToPrincipalPolicy(
    new iam.PolicyStatement({
      sid: 'WriteOwnLogs',
      actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
      resources: [logGroup.logGroupArn],
    }),
  );
  const fn = new NodejsFunction(scope, id, {
    entry: options.entry,
    ...defaultLockFile(options),
    handler: 'handler',
    description: options.description,
    runtime: options.runtime,
    architecture: lambda.Architecture.ARM_64,
    timeout: options.timeout,
    memorySize: options.memorySize,
    reservedConcurrentExecutions: options.reservedConcurrentExecutions,
    role,
    logGroup,
    environment: { NODE_OPTIONS: FUNCTION_NODE_OPTIONS, ...options.environment },
    bundling: {
      format: OutputFormat.ESM,
      mainFields: ['module', 'main'],
      banner: ESM_REQUIRE_BANNER,
      minify: true,
      keepNames: true,
      sourceMap: true,
      sourcesContent: false,
      externalModules: [...(options.bundleAwsSdk ? [] : ['@aws-sdk/*', '@smithy/*']), OPENTELEMETRY_API_PACKAGE],
      logLevel: LogLevel.WARNING,
      forceDockerBundling: false,
      // Flow control is left out of every bundle but a worker built with `flowControl` (its define overrides this).
      define: { ...flowControlDefine(false), ...options.define },
    },
  });
  if (options.runtime.name !== latestNodeRuntime().name) {
    Validations.of(fn).acknowledge({
      id: 'AwsSolutions-L1',
      reason: `Pinned to ${options.runtime.name}, the Node.js line leasefence is built and tested for; pass the runtime prop to move on.`,
    });
  }
  return { fn, role, logGroup };
}

/**
 * The flow-control build constant (lib/config.ts FLOW_CONTROL_CONSTANT): without it (`flowControl` off, every function
 * but such a worker) the concurrency-slot code is left out of the bundle, and a worker whose jobs declare limits
 * refuses to start (lib/worker/worker-runtime.ts) rather than run them unlimited.
 */
function flowControlDefine(enabled: boolean): Record<string, string> {
  return { [FLOW_CONTROL_CONSTANT]: JSON.stringify(enabled ? 'bundled' : 'omitted') };
}

/** The newest Node.js runtime this aws-cdk-lib knows (what cdk-nag's AwsSolutions-L1 compares against). */
function latestNodeRuntime(): lambda.Runtime {
  const version = (runtime: lambda.Runtime) => Number(/^nodejs(\d+)/.exec(runtime.name)?.[1] ?? 0);
  return lambda.Runtime.ALL.filter((runtime) => version(runtime) > 0).reduce((a, b) =>
    version(b) > version(a) ? b : a,
  );
}

export {
  type BundleLocation,
  createLeasefenceFunction,
  FUNCTION_NODE_OPTIONS,
  flowControlDefine,
  type LeasefenceFunction,
  type LeasefenceFunctionOptions,
  PACKAGE_ROOT,
  PackagedEntry,
};
