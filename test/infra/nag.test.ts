import { rmSync } from 'node:fs';
import { App, Stack, Validations } from 'aws-cdk-lib';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LeasefenceStack } from '../../infra/app/stacks/leasefence-stack.js';
import { EXAMPLE_WORKER_ENTRY } from '../../infra/app/stacks/leasefence-stack.js';
import { cdkJsonContext, synthLeasefenceApp } from '../../infra/app/synth.js';
import { FencedJobQueue } from '../../infra/construct/index.js';

let app: App;
let stack: LeasefenceStack;
let outdir: string;

beforeAll(() => {
  // The pack runs explicitly below (validateScope); synth-time checks run in synth.test.ts (`cdk synth`).
  ({ app, stack, outdir } = synthLeasefenceApp({
    stackProps: { alarmEmail: 'ops@example.com' },
    checks: false,
    bundling: false,
  }));
});

afterAll(() => rmSync(outdir, { recursive: true, force: true }));

/** Every acknowledgment (cdk-nag v3 suppression) recorded anywhere in the tree: path, rule id, reason. */
function acknowledgments(root: IConstruct): Array<{ path: string; id: string; reason: string }> {
  return root.node.findAll().flatMap((construct) =>
    construct.node.metadata
      .filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
      .flatMap((entry) =>
        Object.entries(entry.data as Record<string, string>).map(([id, reason]) => ({
          path: construct.node.path,
          id: id.replace(/^annotation::/i, ''),
          reason,
        })),
      ),
  );
}

describe('cdk-nag AwsSolutions', () => {
  it('finds nothing unacknowledged in the project stack (alarm topic and key included)', () => {
    const report = new AwsSolutionsChecks(app, { verbose: true }).validateScope(stack);
    const findings = report.violations.map((violation) => ({
      rule: violation.ruleName,
      resources: violation.violatingResources.map((resource) => resource.constructPath),
    }));
    expect(findings).toEqual([]);
    expect(report.success).toBe(true);
  });

  it('finds nothing unacknowledged with a customer-managed encryptionKey either', () => {
    const keyedApp = new App({ context: { ...cdkJsonContext(), 'aws:cdk:bundling-stacks': [] } });
    const keyed = new Stack(keyedApp, 'Keyed');
    const encryptionKey = new kms.Key(keyed, 'JobsKey', { enableKeyRotation: true });
    new FencedJobQueue(keyed, 'Jobs', {
      workerEntry: EXAMPLE_WORKER_ENTRY,
      encryptionKey,
      alarmEmail: 'ops@example.com',
      // The bulk lane's queue and grants are checked too.
      priorities: { bulkMaxConcurrency: 2 },
    });
    const report = new AwsSolutionsChecks(keyedApp, { verbose: true }).validateScope(keyed);
    expect(report.violations.map((violation) => violation.ruleName)).toEqual([]);
  });

  it('is really checking: a non-compliant queue in the same kind of app is reported', () => {
    const probeApp = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const probe = new Stack(probeApp, 'Probe');
    new sqs.Queue(probe, 'Plain', { encryption: sqs.QueueEncryption.UNENCRYPTED });
    const rules = new AwsSolutionsChecks(probeApp)
      .validateScope(probe)
      .violations.map((violation) => violation.ruleName);
    expect(rules).toEqual(expect.arrayContaining(['AwsSolutions-SQS2', 'AwsSolutions-SQS3', 'AwsSolutions-SQS4']));
  });

  it('every acknowledgment names its rule and gives a reason; only the runtime pin and the identifier key rotation are acknowledged', () => {
    const entries = acknowledgments(stack);
    for (const entry of entries) {
      expect(entry.id).toMatch(/^AwsSolutions-[A-Z0-9]+/);
      expect(entry.reason.length, `${entry.path} ${entry.id}`).toBeGreaterThan(40);
    }
    expect(entries.map((entry) => `${entry.path} ${entry.id}`).sort()).toEqual(
      [
        ...['Admin', 'Sweeper', 'Worker'].map((fn) => `Leasefence/Jobs/${fn} AwsSolutions-L1`),
        // An HMAC key for log pseudonyms: rotation would only break log correlation (infra/construct/identifier-key.ts).
        'Leasefence/Jobs/IdentifierKey AwsSolutions-SMG4',
      ].sort(),
    );
  });

  it('CDK itself annotated no errors or warnings on the stack', () => {
    // The assembly of the beforeAll synth (cached); Annotations.fromStack would force a second synth.
    const messages = app.synth().getStackArtifact(stack.artifactId).messages;
    const problems = messages.filter((message) => message.level === 'error' || message.level === 'warning');
    expect(problems.map((message) => `${message.id} ${String(message.entry.data)}`)).toEqual([]);
  });
});
