import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import type { Construct } from 'constructs';

/** Where alarm notifications go. */
interface AlarmTopicOptions {
  /** Use this topic instead of creating one (its policy and key must let CloudWatch publish). */
  alarmTopic?: sns.ITopic;
  /** Subscribe this address to the topic. */
  alarmEmail?: string;
  /** Encrypt the created topic with this key; without it the topic gets its own rotating key. */
  encryptionKey?: kms.IKey;
}

const CLOUDWATCH = new iam.ServicePrincipal('cloudwatch.amazonaws.com');

/** Condition confining a service principal to calls made for this stack's account (confused deputy). */
function sameAccount(scope: Construct): Record<string, Record<string, string>> {
  return { StringEquals: { 'aws:SourceAccount': Stack.of(scope).account } };
}

/**
 * The topic every alarm notifies: the given one, or a new TLS-only topic that CloudWatch alarms of this
 * account (only) may publish to. An AWS-managed SNS key cannot be used by CloudWatch, so without
 * `encryptionKey` the topic gets a dedicated customer-managed key with rotation on.
 */
function createAlarmTopic(scope: Construct, options: AlarmTopicOptions): sns.ITopic {
  const topic = options.alarmTopic ?? newTopic(scope, options.encryptionKey);
  if (options.alarmEmail) topic.addSubscription(new subscriptions.EmailSubscription(options.alarmEmail));
  return topic;
}

function newTopic(scope: Construct, encryptionKey: kms.IKey | undefined): sns.Topic {
  const key =
    encryptionKey ??
    new kms.Key(scope, 'AlarmTopicKey', {
      description: 'leasefence alarm topic encryption',
      enableKeyRotation: true,
      // The key only protects notifications in flight; nothing encrypted with it outlives the stack.
      removalPolicy: RemovalPolicy.DESTROY,
      pendingWindow: Duration.days(7),
    });
  // A no-op for an imported key: its own policy must then allow CloudWatch (see infra/README.md).
  key.addToResourcePolicy(
    new iam.PolicyStatement({
      sid: 'CloudWatchAlarmsOfThisAccount',
      principals: [CLOUDWATCH],
      actions: ['kms:Decrypt', 'kms:GenerateDataKey'],
      resources: ['*'],
      conditions: sameAccount(scope),
    }),
  );
  const topic = new sns.Topic(scope, 'AlarmTopic', { masterKey: key, enforceSSL: true });
  topic.addToResourcePolicy(
    new iam.PolicyStatement({
      sid: 'CloudWatchAlarmsOfThisAccount',
      principals: [CLOUDWATCH],
      actions: ['sns:Publish'],
      resources: [topic.topicArn],
      conditions: sameAccount(scope),
    }),
  );
  return topic;
}

export { type AlarmTopicOptions, createAlarmTopic };
