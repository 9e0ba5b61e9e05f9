import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { LeasefenceStack, type LeasefenceStackProps } from './stacks/leasefence-stack.js';

const CDK_JSON = fileURLToPath(new URL('../../cdk.json', import.meta.url));

/** The context (feature flags) of cdk.json, so a programmatic synth matches `cdk synth`. */
function cdkJsonContext(): Record<string, unknown> {
  const parsed = JSON.parse(readFileSync(CDK_JSON, 'utf8')) as { context?: Record<string, unknown> };
  return parsed.context ?? {};
}

/** What the project app contains. */
interface AppOptions {
  stackName?: string;
  stackProps?: LeasefenceStackProps;
  /** Run cdk-nag and the CloudFormation rules at synth (default true; they add seconds to every synth). */
  checks?: boolean;
}

/**
 * Adds the project stack to an app and, unless `checks` is false, registers cdk-nag's AwsSolutions pack:
 * synthesis then fails on any unacknowledged finding and on CloudFormation default-rule violations.
 */
function buildLeasefenceApp(app: App, options: AppOptions = {}): LeasefenceStack {
  const stack = new LeasefenceStack(app, options.stackName ?? 'Leasefence', {
    description: 'leasefence: fenced background jobs on Lambda, DynamoDB and SQS',
    ...options.stackProps,
  });
  if (options.checks !== false) Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));
  return stack;
}

/** Where and what to synthesize. */
interface SynthOptions extends AppOptions {
  /** Cloud assembly directory. Default: a fresh directory under the OS temp dir (never ./cdk.out). */
  outdir?: string;
  /** Bundle the functions (default true). Without bundling the template is the same except for code hashes. */
  bundling?: boolean;
}

/** A synthesized project app: the stack object (for its constructs) and its template JSON. */
interface SynthResult {
  app: App;
  stack: LeasefenceStack;
  outdir: string;
  template: Record<string, unknown>;
}

/** Builds and synthesizes the project app offline (env-agnostic, local esbuild bundling). */
function synthLeasefenceApp(options: SynthOptions = {}): SynthResult {
  const outdir = options.outdir ?? mkdtempSync(join(tmpdir(), 'leasefence-synth-'));
  const context = { ...cdkJsonContext(), ...(options.bundling === false ? { 'aws:cdk:bundling-stacks': [] } : {}) };
  const app = new App({ outdir, context });
  const stack = buildLeasefenceApp(app, options);
  const assembly = app.synth();
  const template = assembly.getStackByName(stack.stackName).template as Record<string, unknown>;
  return { app, stack, outdir, template };
}

export { type AppOptions, buildLeasefenceApp, cdkJsonContext, type SynthOptions, type SynthResult, synthLeasefenceApp };
