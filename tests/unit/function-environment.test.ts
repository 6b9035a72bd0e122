// The CloudFormation-valued environment entries the local stack resolves for serverless offline
// (scripts/stack/function-environment.ts); tests/http/schedules.test.ts runs a function that depends on it.
import { describe, expect, it } from 'vitest';
import type { ServerlessConfig } from '../../scripts/stack/config.js';
import { resolveEnvironments } from '../../scripts/stack/function-environment.js';
import type { RefScope } from '../../scripts/stack/intrinsics.js';
import type { StackLogger } from '../../scripts/stack/types.js';

const queueUrl = 'http://127.0.0.1:4566/000000000000/arcadia-dev-snapshots';
const scope: RefScope = {
  refs: new Map([
    [
      'SnapshotQueue',
      { ref: queueUrl, attributes: { Arn: 'arn:aws:sqs:us-east-1:000000000000:arcadia-dev-snapshots' } },
    ],
  ]),
  pseudo: { 'AWS::Region': 'us-east-1', 'AWS::AccountId': '000000000000', 'AWS::Partition': 'aws' },
};

const logger = () => {
  const errors: string[] = [];
  const log: StackLogger = {
    info: () => {},
    warn: () => {},
    debug: () => {},
    error: (message) => errors.push(message),
  };
  return { log, errors };
};

describe('resolveEnvironments', () => {
  it('resolves Ref, Fn::GetAtt and Fn::Sub values of provider and functions, and only those', () => {
    const config: ServerlessConfig = {
      service: 'arcadia',
      provider: { environment: { TABLE: 'plain', QUEUE_ARN: { 'Fn::GetAtt': ['SnapshotQueue', 'Arn'] } } },
      functions: {
        scheduleSnapshots: { environment: { SNAPSHOT_QUEUE_URL: { Ref: 'SnapshotQueue' }, RATE: '1 hour' } },
        launch: {
          environment: {
            // biome-ignore lint/suspicious/noTemplateCurlyInString: CloudFormation's Fn::Sub syntax
            ARN: { 'Fn::Sub': ['arn:${AWS::Partition}:states:${AWS::Region}:${AWS::AccountId}:x:y', {}] },
          },
        },
        plain: { environment: { A: 'b' } },
      },
    };
    const { log, errors } = logger();
    expect(resolveEnvironments(config, scope, log)).toEqual({
      provider: { QUEUE_ARN: 'arn:aws:sqs:us-east-1:000000000000:arcadia-dev-snapshots' },
      functions: {
        scheduleSnapshots: { SNAPSHOT_QUEUE_URL: queueUrl },
        launch: { ARN: 'arn:aws:states:us-east-1:000000000000:x:y' },
      },
    });
    expect(errors).toEqual([]);
  });

  it('logs a reference to a resource the local stack does not have and leaves it out', () => {
    const config: ServerlessConfig = {
      service: 'arcadia',
      provider: {},
      functions: { f: { environment: { TOPIC: { Ref: 'AlertsTopic' }, QUEUE: { Ref: 'SnapshotQueue' } } } },
    };
    const { log, errors } = logger();
    expect(resolveEnvironments(config, scope, log).functions).toEqual({ f: { QUEUE: queueUrl } });
    expect(errors).toEqual([expect.stringContaining('function f: environment TOPIC')]);
  });
});
