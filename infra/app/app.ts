import { App } from 'aws-cdk-lib';
import { buildLeasefenceApp } from './synth.js';

/**
 * The project's CDK app: `npm run synth` / `npm run deploy` (see infra/README.md). Environment-agnostic, so
 * synth runs offline; cdk-nag's AwsSolutions pack fails synthesis on any unacknowledged finding.
 * Context: `-c stackName=...` (default Leasefence), `-c alarmEmail=ops@example.com`.
 */
const app = new App();
const stackName = app.node.tryGetContext('stackName') as string | undefined;
const alarmEmail = app.node.tryGetContext('alarmEmail') as string | undefined;
buildLeasefenceApp(app, {
  ...(stackName ? { stackName } : {}),
  ...(alarmEmail ? { stackProps: { alarmEmail } } : {}),
});
app.synth();
