// The local stack matches serverless.yml (tables, TTL, buckets, queues, DLQ redrive) and its stand-ins work:
// SQS send/receive, S3 put/get, and Step Functions executions (Pass, Task with Retry on a custom error name).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import {
  DescribeTableCommand,
  DescribeTimeToLiveCommand,
  DynamoDBClient,
  type KeySchemaElement,
} from '@aws-sdk/client-dynamodb';
import { GetObjectCommand, HeadBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import {
  CreateStateMachineCommand,
  DescribeExecutionCommand,
  type DescribeExecutionCommandOutput,
  ListExecutionsCommand,
  SFNClient,
  StartExecutionCommand,
  StopExecutionCommand,
} from '@aws-sdk/client-sfn';
import {
  ChangeMessageVisibilityCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  type Message,
  ReceiveMessageCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CfnResource, loadServerlessConfig } from '../../scripts/stack/config.js';
import { type LocalStepFunctions, startStepFunctions } from '../../scripts/stack/stepfunctions.js';
import { pollUntil } from '../../scripts/stack/wait.js';

// Clients take endpoints, region and credentials from the stack environment (tests/setup-env.ts).
const dynamodb = new DynamoDBClient({});
const s3 = new S3Client({ forcePathStyle: process.env.S3_FORCE_PATH_STYLE === 'true' });
const sqs = new SQSClient({});
const sfn = new SFNClient({});

let resources: Record<string, CfnResource> = {};
const ofType = (type: string) => Object.entries(resources).filter(([, resource]) => resource.Type === type);
const props = (resource: CfnResource) => (resource.Properties ?? {}) as Record<string, unknown>;

beforeAll(async () => {
  resources =
    (await loadServerlessConfig(fileURLToPath(new URL('../..', import.meta.url)))).resources?.Resources ?? {};
});

describe('resources declared in serverless.yml', () => {
  it('declares tables, a bucket and queues (so the checks below check something)', () => {
    expect(ofType('AWS::DynamoDB::Table').length).toBeGreaterThan(0);
    expect(ofType('AWS::S3::Bucket').length).toBeGreaterThan(0);
    expect(ofType('AWS::SQS::Queue').length).toBeGreaterThan(0);
  });

  it('creates every table with its key schema, indexes and TTL', async () => {
    for (const [, resource] of ofType('AWS::DynamoDB::Table')) {
      const declared = props(resource);
      const TableName = declared.TableName as string;
      const { Table: table } = await dynamodb.send(new DescribeTableCommand({ TableName }));
      expect(table?.KeySchema).toEqual(declared.KeySchema);
      expect(table?.BillingModeSummary?.BillingMode).toBe('PAY_PER_REQUEST');
      const indexes = (declared.GlobalSecondaryIndexes ?? []) as {
        IndexName: string;
        KeySchema: KeySchemaElement[];
      }[];
      for (const index of indexes) {
        const local = table?.GlobalSecondaryIndexes?.find((gsi) => gsi.IndexName === index.IndexName);
        expect(local?.KeySchema, `${TableName} index ${index.IndexName}`).toEqual(index.KeySchema);
      }
      const ttl = declared.TimeToLiveSpecification as { AttributeName: string; Enabled: boolean } | undefined;
      const { TimeToLiveDescription: live } = await dynamodb.send(
        new DescribeTimeToLiveCommand({ TableName }),
      );
      if (ttl?.Enabled) {
        expect(live).toMatchObject({ TimeToLiveStatus: 'ENABLED', AttributeName: ttl.AttributeName });
      } else {
        expect(live?.TimeToLiveStatus).toBe('DISABLED');
      }
    }
  });

  it('creates every bucket, and an object put there reads back byte for byte', async () => {
    for (const [, resource] of ofType('AWS::S3::Bucket')) {
      const Bucket = props(resource).BucketName as string;
      await s3.send(new HeadBucketCommand({ Bucket }));
      const body = Buffer.from(`round trip ${Date.now()} \u00e9\u00e8`);
      await s3.send(
        new PutObjectCommand({ Bucket, Key: 'tests/round-trip.txt', Body: body, ContentType: 'text/plain' }),
      );
      const got = await s3.send(new GetObjectCommand({ Bucket, Key: 'tests/round-trip.txt' }));
      expect(got.ContentType).toBe('text/plain');
      expect(Buffer.from(await (got.Body?.transformToByteArray() ?? new Uint8Array()))).toEqual(body);
    }
  });

  it('serves game images from the images bucket on the S3 stand-in (CloudFront in AWS), readable without credentials', async () => {
    const bucket = process.env.IMAGES_BUCKET ?? '';
    expect(process.env.IMAGES_BASE_URL).toBe(`${process.env.AWS_ENDPOINT_URL_S3}/${bucket}`);
    const key = `games/local-stack/${Date.now()}.txt`;
    await s3.send(
      new PutObjectCommand({ Bucket: bucket, Key: key, Body: 'public', ContentType: 'text/plain' }),
    );
    const served = await fetch(`${process.env.IMAGES_BASE_URL}/${key}`);
    expect([served.status, await served.text()]).toEqual([200, 'public']);
  });

  it('creates every queue on 127.0.0.1 with its attributes and dead-letter redrive policy', async () => {
    const port = new URL(process.env.AWS_ENDPOINT_URL_SQS ?? '').port;
    for (const [, resource] of ofType('AWS::SQS::Queue')) {
      const declared = props(resource);
      const QueueName = declared.QueueName as string;
      const { QueueUrl } = await sqs.send(new GetQueueUrlCommand({ QueueName }));
      expect(QueueUrl).toBe(`http://127.0.0.1:${port}/000000000000/${QueueName}`);
      const { Attributes: actual = {} } = await sqs.send(
        new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['All'] }),
      );
      for (const key of ['VisibilityTimeout', 'MessageRetentionPeriod'] as const) {
        if (declared[key] !== undefined)
          expect(actual[key], `${QueueName} ${key}`).toBe(String(declared[key]));
      }
      const redrive = declared.RedrivePolicy as
        | { deadLetterTargetArn: { 'Fn::GetAtt': [string, string] }; maxReceiveCount: number }
        | undefined;
      if (redrive) {
        const dlqId = redrive.deadLetterTargetArn['Fn::GetAtt'][0];
        const dlqName = props(resources[dlqId] as CfnResource).QueueName as string;
        const { QueueUrl: dlqUrl } = await sqs.send(new GetQueueUrlCommand({ QueueName: dlqName }));
        const { Attributes: dlq = {} } = await sqs.send(
          new GetQueueAttributesCommand({ QueueUrl: dlqUrl, AttributeNames: ['QueueArn'] }),
        );
        const policy = JSON.parse(actual.RedrivePolicy ?? '{}');
        expect(policy.deadLetterTargetArn).toBe(dlq.QueueArn);
        expect(Number(policy.maxReceiveCount)).toBe(redrive.maxReceiveCount);
      }
    }
  });

  it('delivers a message sent to each queue', async () => {
    for (const [, resource] of ofType('AWS::SQS::Queue')) {
      const { QueueUrl } = await sqs.send(
        new GetQueueUrlCommand({ QueueName: props(resource).QueueName as string }),
      );
      const body = JSON.stringify({ test: 'local-stack', at: Date.now() });
      await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: body }));
      // Other tests' messages may be queued too (the schedules test queues settlements; every webhook event sends
      // a relay message, hundreds by now): receive until ours shows up or the queue has nothing more to give, then
      // hand theirs back at once (visibility 0) so those tests still find them.
      let message: Message | undefined;
      const others: Message[] = [];
      for (let round = 0, empty = 0; round < 1_000 && !message && empty < 3; round++) {
        const { Messages = [] } = await sqs.send(
          new ReceiveMessageCommand({
            QueueUrl,
            MaxNumberOfMessages: 10,
            WaitTimeSeconds: 1,
            VisibilityTimeout: 60,
          }),
        );
        empty = Messages.length === 0 ? empty + 1 : 0;
        message = Messages.find((candidate) => candidate.Body === body);
        others.push(...Messages.filter((candidate) => candidate !== message));
      }
      for (const other of others)
        await sqs.send(
          new ChangeMessageVisibilityCommand({
            QueueUrl,
            ReceiptHandle: other.ReceiptHandle,
            VisibilityTimeout: 0,
          }),
        );
      expect(message, QueueUrl).toBeDefined();
      await sqs.send(new DeleteMessageCommand({ QueueUrl, ReceiptHandle: message?.ReceiptHandle }));
    }
  });
});

const finished = (executionArn: string) =>
  pollUntil<DescribeExecutionCommandOutput>(
    `execution ${executionArn}`,
    async () => {
      const described = await sfn.send(new DescribeExecutionCommand({ executionArn }));
      return described.status === 'RUNNING' ? undefined : described;
    },
    { timeoutMs: 20_000, intervalMs: 100 },
  );

describe('Step Functions stand-in (shared stack, real @aws-sdk/client-sfn)', () => {
  it('runs a registered Pass machine and lists and stops executions', async () => {
    const name = `local-stack-${Date.now()}`;
    const { stateMachineArn } = await sfn.send(
      new CreateStateMachineCommand({
        name,
        roleArn: 'arn:aws:iam::000000000000:role/local',
        definition: JSON.stringify({
          StartAt: 'Choose',
          States: {
            Choose: {
              Type: 'Choice',
              Choices: [{ Variable: '$.wait', BooleanEquals: true, Next: 'Hold' }],
              Default: 'Greet',
            },
            Hold: { Type: 'Wait', Seconds: 60, Next: 'Greet' },
            Greet: {
              Type: 'Pass',
              Parameters: { 'greeting.$': "States.Format('hello {}', $.who)" },
              End: true,
            },
          },
        }),
      }),
    );
    const started = await sfn.send(
      new StartExecutionCommand({ stateMachineArn, input: JSON.stringify({ who: 'arc', wait: false }) }),
    );
    const done = await finished(started.executionArn ?? '');
    expect(done.status).toBe('SUCCEEDED');
    expect(JSON.parse(done.output ?? '')).toEqual({ greeting: 'hello arc' });
    expect(done.startDate).toBeInstanceOf(Date);

    const waiting = await sfn.send(
      new StartExecutionCommand({
        stateMachineArn,
        name: 'held',
        input: JSON.stringify({ who: 'x', wait: true }),
      }),
    );
    await sfn.send(new StopExecutionCommand({ executionArn: waiting.executionArn, error: 'Test.Stop' }));
    const stopped = await sfn.send(new DescribeExecutionCommand({ executionArn: waiting.executionArn }));
    expect(stopped).toMatchObject({ status: 'ABORTED', error: 'Test.Stop' });

    const { executions = [] } = await sfn.send(new ListExecutionsCommand({ stateMachineArn }));
    expect(executions.map((execution) => execution.status).sort()).toEqual(['ABORTED', 'SUCCEEDED']);
    await expect(
      sfn.send(new DescribeExecutionCommand({ executionArn: `${waiting.executionArn}-missing` })),
    ).rejects.toMatchObject({ name: 'ExecutionDoesNotExist' });
  });

  it('invokes functions through serverless offline; a missing one is Lambda.ResourceNotFoundException', async () => {
    const { stateMachineArn } = await sfn.send(
      new CreateStateMachineCommand({
        name: `local-lambda-${Date.now()}`,
        roleArn: 'arn:aws:iam::000000000000:role/local',
        definition: JSON.stringify({
          StartAt: 'Missing',
          States: {
            Missing: {
              Type: 'Task',
              Resource: 'arn:aws:lambda:us-east-1:000000000000:function:arcadia-dev-doesNotExist',
              Catch: [
                {
                  ErrorEquals: ['Lambda.ResourceNotFoundException'],
                  ResultPath: '$.error',
                  Next: 'Reference',
                },
              ],
              Next: 'Reference',
            },
            Reference: {
              Type: 'Task',
              Resource: 'arn:aws:states:::lambda:invoke',
              Parameters: {
                FunctionName: 'arcadia-dev-apiReferenceJson',
                Payload: httpGet('/api-reference-json'),
              },
              ResultSelector: { 'statusCode.$': '$.Payload.statusCode' },
              ResultPath: '$.reference',
              // A failure of the handler itself still proves the round trip; it is reported, not hidden.
              Catch: [{ ErrorEquals: ['States.ALL'], ResultPath: '$.referenceError', Next: 'Done' }],
              Next: 'Done',
            },
            Done: { Type: 'Succeed' },
          },
        }),
      }),
    );
    const { executionArn } = await sfn.send(new StartExecutionCommand({ stateMachineArn }));
    const done = await finished(executionArn ?? '');
    expect(done.status, done.cause).toBe('SUCCEEDED');
    const output = JSON.parse(done.output ?? '{}');
    expect(output.error.Error).toBe('Lambda.ResourceNotFoundException');
    // Lambda.* errors would mean the stand-in did not reach the function; anything else came from the handler.
    expect(output.referenceError?.Error ?? 'none', output.referenceError?.Cause).not.toMatch(/^Lambda\./);
    if (!output.referenceError) expect(output.reference).toEqual({ statusCode: 200 });
  });
});

describe('Step Functions stand-in: Retry and Catch on the error name a handler threw', () => {
  // A stand-in for serverless-offline's invoke API with its exact failure format: errorType is always
  // "Error", the real name survives only in the first trace line.
  let attempts = 0;
  let invokeServer: Server;
  let stepFunctions: LocalStepFunctions;
  let client: SFNClient;

  beforeAll(async () => {
    invokeServer = createServer((request, response) => {
      const failing = request.url?.includes('/functions/arcadia-dev-flaky/') && attempts++ < 2;
      const fatal = request.url?.includes('/functions/arcadia-dev-broken/');
      if (failing || fatal) {
        const name = fatal ? 'GameNotFoundError' : 'ChainBusyError';
        response.writeHead(200, { 'content-type': 'application/json', 'x-amz-function-error': 'Unhandled' });
        response.end(
          JSON.stringify({
            errorMessage: 'try later',
            errorType: 'Error',
            trace: [`${name}: try later`, '    at x'],
          }),
        );
        return;
      }
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ minted: true, attempts }));
    });
    await new Promise<void>((resolve) => invokeServer.listen(0, '127.0.0.1', resolve));
    const { port } = invokeServer.address() as AddressInfo;
    stepFunctions = await startStepFunctions({ port: 0, lambdaInvokeUrl: `http://127.0.0.1:${port}` });
    client = new SFNClient({ endpoint: stepFunctions.endpoint });
  });

  afterAll(async () => {
    client?.destroy();
    await stepFunctions?.stop();
    await new Promise((resolve) => invokeServer?.close(resolve));
  });

  it('retries ChainBusyError until the task succeeds, after a Pass state', async () => {
    const stateMachineArn = stepFunctions.registerStateMachine('mint', {
      StartAt: 'Prepare',
      States: {
        Prepare: { Type: 'Pass', Result: { gameId: 'g-1' }, ResultPath: '$.game', Next: 'Mint' },
        Mint: {
          Type: 'Task',
          Resource: 'arn:aws:lambda:us-east-1:000000000000:function:arcadia-dev-flaky',
          Retry: [{ ErrorEquals: ['ChainBusyError'], IntervalSeconds: 1, BackoffRate: 1, MaxAttempts: 3 }],
          ResultPath: '$.mint',
          End: true,
        },
      },
    });
    const { executionArn } = await client.send(new StartExecutionCommand({ stateMachineArn, input: '{}' }));
    const done = await pollUntil(
      'mint execution',
      async () => {
        const described = await client.send(new DescribeExecutionCommand({ executionArn }));
        return described.status === 'RUNNING' ? undefined : described;
      },
      { timeoutMs: 20_000 },
    );
    expect(done.status, done.cause).toBe('SUCCEEDED');
    expect(JSON.parse(done.output ?? '{}')).toEqual({
      game: { gameId: 'g-1' },
      mint: { minted: true, attempts: 3 },
    });
  });

  it('does not retry another error name and fails the execution with it', async () => {
    const stateMachineArn = stepFunctions.registerStateMachine('broken', {
      StartAt: 'Mint',
      States: {
        Mint: {
          Type: 'Task',
          Resource: 'arn:aws:lambda:us-east-1:000000000000:function:arcadia-dev-broken',
          Retry: [{ ErrorEquals: ['ChainBusyError'], IntervalSeconds: 1, MaxAttempts: 3 }],
          End: true,
        },
      },
    });
    const { executionArn } = await client.send(new StartExecutionCommand({ stateMachineArn }));
    const done = await pollUntil(
      'broken execution',
      async () => {
        const described = await client.send(new DescribeExecutionCommand({ executionArn }));
        return described.status === 'RUNNING' ? undefined : described;
      },
      { timeoutMs: 10_000 },
    );
    expect(done.status).toBe('FAILED');
    expect(done.error).toBe('GameNotFoundError');
    expect(JSON.parse(done.cause ?? '{}')).toMatchObject({
      errorType: 'GameNotFoundError',
      errorMessage: 'try later',
    });
  });
});

// A minimal API Gateway HTTP API (payload 2.0) GET event.
function httpGet(path: string): Record<string, unknown> {
  return {
    version: '2.0',
    routeKey: `GET ${path}`,
    rawPath: path,
    rawQueryString: '',
    headers: { host: 'localhost' },
    requestContext: {
      http: { method: 'GET', path, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'vitest' },
      requestId: 'local-stack-test',
      routeKey: `GET ${path}`,
      stage: '$default',
      time: new Date().toISOString(),
      timeEpoch: Date.now(),
    },
    isBase64Encoded: false,
  };
}
