import { App, Duration, RemovalPolicy } from 'aws-cdk-lib';
import type { LeasefenceStackProps } from './stacks/leasefence-stack.js';
import { buildLeasefenceApp } from './synth.js';

/**
 * The project's CDK app: `npm run synth` / `npm run deploy` (see infra/README.md). Environment-agnostic, so
 * synth runs offline; cdk-nag's AwsSolutions pack fails synthesis on any unacknowledged finding.
 * Context: `-c stackName=...` (default Leasefence), `-c alarmEmail=ops@example.com`; for a test stack (the
 * deployment lane, `npm run test:aws`): `-c environment=test` (its tables are then destroyed with the stack),
 * `-c faultInjection=true`, `-c workerEntry=<file>` (default the example worker), `-c workerTimeoutSeconds=15` (the
 * queue's visibility timeout follows it: 6 × timeout + window, the wait before a crashed attempt's redelivery).
 */
const app = new App();
const context = (key: string) => app.node.tryGetContext(key) as string | undefined;
const stackName = context('stackName');
const alarmEmail = context('alarmEmail');
const environment = context('environment') as NonNullable<LeasefenceStackProps['jobs']>['environment'];
const workerEntry = context('workerEntry');
const workerTimeout = context('workerTimeoutSeconds');
const disposable = environment === 'test' ? { removalPolicy: RemovalPolicy.DESTROY, deletionProtection: false } : {};
const jobs = {
  ...(environment ? { environment } : {}),
  ...(String(context('faultInjection')) === 'true' ? { faultInjection: true } : {}),
  ...(workerEntry ? { workerEntry } : {}),
  ...(workerTimeout ? { workerTimeout: Duration.seconds(Number(workerTimeout)) } : {}),
  ...disposable,
};
buildLeasefenceApp(app, {
  ...(stackName ? { stackName } : {}),
  stackProps: { ...(alarmEmail ? { alarmEmail } : {}), jobs },
});
app.synth();
