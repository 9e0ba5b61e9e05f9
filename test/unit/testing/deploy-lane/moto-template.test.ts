import { describe, expect, it } from 'vitest';
import {
  rewriteTemplateForMoto,
  secretsToCreate,
  type Template,
} from '../../../../infra/testing/deploy-lane/moto-template.js';

function template(): Template {
  return {
    Resources: {
      Key: {
        Type: 'AWS::SecretsManager::Secret',
        Properties: { Description: 'key', GenerateSecretString: { PasswordLength: 64 } },
      },
      Cmk: { Type: 'AWS::KMS::Key', Properties: { EnableKeyRotation: true, Tags: [{ Key: 'a', Value: 'b' }] } },
      Alarm: { Type: 'AWS::CloudWatch::Alarm', Properties: { MetricName: 'm' } },
      Queue: { Type: 'AWS::SQS::Queue', Properties: {} },
      Url: { Type: 'AWS::Lambda::Url', Properties: {} },
      Fn: {
        Type: 'AWS::Lambda::Function',
        Properties: {
          Environment: { Variables: { SECRET: { Ref: 'Key' }, QUEUE: { Ref: 'Queue' }, KMS: { Ref: 'Cmk' } } },
        },
      },
      Board: {
        Type: 'AWS::CloudWatch::Dashboard',
        Properties: { Body: { 'Fn::Join': ['', [{ 'Fn::GetAtt': ['Alarm', 'Arn'] }]] } },
      },
    },
    Outputs: { QueueUrl: { Value: { Ref: 'Queue' } }, AdminUrl: { Value: { 'Fn::GetAtt': ['Url', 'FunctionUrl'] } } },
  };
}

const INPUT = {
  stackName: 'Lane',
  endpoint: 'http://localhost:4566',
  secretArns: { Key: 'arn:aws:secretsmanager:us-east-1:123456789012:secret:Lane-Key-abc' },
  account: '123456789012',
  region: 'us-east-1',
};

describe('the synthesized template rewritten for moto', () => {
  it('lists each secret to create first, named after the stack, with its generated length', () => {
    // Act
    const secrets = secretsToCreate(template(), 'Lane');

    // Assert
    expect(secrets).toEqual([{ logicalId: 'Key', name: 'Lane-Key', description: 'key', length: 64 }]);
  });

  it('drops the secret (its Refs become the created ARN), the KMS key tags, and reads alarms and queue URLs as literals', () => {
    // Act
    const rewritten = rewriteTemplateForMoto(template(), INPUT);

    // Assert
    expect(rewritten.Resources.Key).toBeUndefined();
    expect(rewritten.Resources.Cmk?.Properties).toEqual({ EnableKeyRotation: true });
    expect(rewritten.Resources.Fn?.Properties?.Environment).toEqual({
      Variables: {
        SECRET: INPUT.secretArns.Key,
        QUEUE: { 'Fn::Join': ['', ['http://localhost:4566/123456789012/', { 'Fn::GetAtt': ['Queue', 'QueueName'] }]] },
        KMS: { Ref: 'Cmk' },
      },
    });
    expect(rewritten.Resources.Board?.Properties?.Body).toEqual({
      'Fn::Join': ['', ['arn:aws:cloudwatch:us-east-1:123456789012:alarm:Lane-Alarm']],
    });
    expect(rewritten.Outputs).toEqual({
      QueueUrl: {
        Value: { 'Fn::Join': ['', ['http://localhost:4566/123456789012/', { 'Fn::GetAtt': ['Queue', 'QueueName'] }]] },
      },
    });
  });

  it('refuses a template whose secret was not created before the deploy', () => {
    // Act
    const rewrite = () => rewriteTemplateForMoto(template(), { ...INPUT, secretArns: {} });

    // Assert
    expect(rewrite).toThrow('secret Key was not created before the deploy');
  });
});
