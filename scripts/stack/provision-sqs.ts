// AWS::SQS::Queue → a queue on fauxqs (idempotent), dead-letter queues first.
import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  SetQueueAttributesCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { CfnResource } from './config.js';
import { type RefScope, resolveIntrinsics, resolveString } from './intrinsics.js';

/** A queue as created locally. */
export interface ProvisionedQueue {
  logicalId: string;
  name: string;
  url: string;
  arn: string;
}

// CloudFormation properties that are SQS attributes with the same name and a behavioural effect locally.
const PLAIN_ATTRIBUTES = [
  'DelaySeconds',
  'MaximumMessageSize',
  'MessageRetentionPeriod',
  'ReceiveMessageWaitTimeSeconds',
  'VisibilityTimeout',
  'FifoQueue',
  'ContentBasedDeduplication',
  'DeduplicationScope',
  'FifoThroughputLimit',
] as const;
// Attributes whose CloudFormation value is an object and whose SQS value is its JSON text.
const JSON_ATTRIBUTES = ['RedrivePolicy', 'RedriveAllowPolicy'] as const;

/** Queue logical ids ordered so that every queue comes after the queues its properties reference (DLQs). */
export function queueCreationOrder(queues: Record<string, CfnResource>): string[] {
  const ordered: string[] = [];
  const visiting = new Set<string>();
  const visit = (id: string): void => {
    if (ordered.includes(id) || visiting.has(id)) return;
    visiting.add(id);
    for (const dependency of referencedIds(queues[id]?.Properties))
      if (dependency in queues) visit(dependency);
    ordered.push(id);
  };
  for (const id of Object.keys(queues)) visit(id);
  return ordered;
}

/** Creates the queue with its attributes (or updates the attributes of an existing one). */
export async function ensureQueue(
  client: SQSClient,
  logicalId: string,
  resource: CfnResource,
  scope: RefScope,
): Promise<ProvisionedQueue> {
  const props = resource.Properties ?? {};
  const fifo = String(props.FifoQueue) === 'true';
  const name =
    props.QueueName === undefined
      ? `${scope.pseudo['AWS::StackName']}-${logicalId}${fifo ? '.fifo' : ''}`
      : resolveString(props.QueueName, scope);
  const attributes = queueAttributes(props, scope);
  const tags = Object.fromEntries(
    ((props.Tags as { Key: string; Value: string }[] | undefined) ?? []).map((tag) => [tag.Key, tag.Value]),
  );
  let url: string;
  try {
    ({ QueueUrl: url = '' } = await client.send(
      new CreateQueueCommand({ QueueName: name, Attributes: attributes, tags }),
    ));
  } catch (error) {
    if (!isQueueNameExists(error)) throw error;
    ({ QueueUrl: url = '' } = await client.send(new GetQueueUrlCommand({ QueueName: name })));
    await client.send(
      new SetQueueAttributesCommand({ QueueUrl: url, Attributes: withoutFifoOnly(attributes) }),
    );
  }
  const { Attributes: current } = await client.send(
    new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] }),
  );
  return { logicalId, name, url, arn: current?.QueueArn ?? '' };
}

function queueAttributes(props: Record<string, unknown>, scope: RefScope): Record<string, string> {
  const attributes: Record<string, string> = {};
  for (const key of PLAIN_ATTRIBUTES) {
    if (props[key] !== undefined) attributes[key] = String(resolveIntrinsics(props[key], scope));
  }
  for (const key of JSON_ATTRIBUTES) {
    const value = props[key];
    if (value !== undefined) {
      attributes[key] = typeof value === 'string' ? value : JSON.stringify(resolveIntrinsics(value, scope));
    }
  }
  return attributes;
}

// The SDK's awsQueryCompatible errors are named `AWS.SimpleQueueService.QueueNameExists`, not the class name.
function isQueueNameExists(error: unknown): boolean {
  return error instanceof Error && /QueueNameExists|QueueAlreadyExists/.test(error.name);
}

// FifoQueue can only be given at creation.
function withoutFifoOnly(attributes: Record<string, string>): Record<string, string> {
  const { FifoQueue: _fifo, ...rest } = attributes;
  return rest;
}

function referencedIds(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(referencedIds);
  if (value === null || typeof value !== 'object') return [];
  const record = value as Record<string, unknown>;
  if (typeof record.Ref === 'string') return [record.Ref];
  const getAtt = record['Fn::GetAtt'];
  if (Array.isArray(getAtt) && typeof getAtt[0] === 'string') return [getAtt[0]];
  if (typeof getAtt === 'string') return [getAtt.split('.')[0] ?? ''];
  return Object.values(record).flatMap(referencedIds);
}
