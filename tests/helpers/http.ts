import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';

export interface EventInput {
  method: string;
  path: string;
  pathParameters?: Record<string, string>;
  query?: Record<string, string>;
  headers?: Record<string, string>;
  body?: unknown;
  rawBody?: string | Buffer;
  sourceIp?: string;
  /** The function's timeout this invocation runs under (ms; the API's 10 s when absent), counting down. */
  timeoutMs?: number;
}

/** Build an API Gateway HTTP API (payload 2.0) event, as API Gateway and serverless-offline send it. */
export const httpEvent = (input: EventInput): APIGatewayProxyEventV2 => {
  const headers: Record<string, string> = { ...(input.headers ?? {}) };
  let body: string | undefined;
  let isBase64Encoded = false;
  if (input.rawBody !== undefined) {
    if (Buffer.isBuffer(input.rawBody)) {
      body = input.rawBody.toString('base64');
      isBase64Encoded = true;
    } else body = input.rawBody;
  } else if (input.body !== undefined) {
    body = JSON.stringify(input.body);
    headers['content-type'] ??= 'application/json';
  }
  const query = input.query ?? {};
  const rawQueryString = new URLSearchParams(query).toString();
  return {
    version: '2.0',
    routeKey: `${input.method} ${input.path}`,
    rawPath: input.path,
    rawQueryString,
    headers,
    ...(Object.keys(query).length ? { queryStringParameters: query } : {}),
    ...(input.pathParameters ? { pathParameters: input.pathParameters } : {}),
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      domainName: 'localhost',
      domainPrefix: 'localhost',
      http: {
        method: input.method,
        path: input.path,
        protocol: 'HTTP/1.1',
        sourceIp: input.sourceIp ?? `198.51.100.${Math.floor(Math.random() * 254) + 1}`,
        userAgent: 'vitest',
      },
      requestId: randomUUID(),
      routeKey: `${input.method} ${input.path}`,
      stage: '$default',
      time: new Date().toISOString(),
      timeEpoch: Date.now(),
    },
    ...(body !== undefined ? { body } : {}),
    isBase64Encoded,
  };
};

const context = (timeoutMs = 10_000): Context => {
  const endsAt = Date.now() + timeoutMs;
  return {
    functionName: 'test',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:us-east-1:000000000000:function:test',
    memoryLimitInMB: '512',
    awsRequestId: randomUUID(),
    logGroupName: 'test',
    logStreamName: 'test',
    callbackWaitsForEmptyEventLoop: false,
    getRemainingTimeInMillis: () => Math.max(0, endsAt - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  } as Context;
};

export interface TestResponse<T = unknown> {
  status: number;
  headers: Record<string, string>;
  body: T;
  text: string;
}

export type Handler = (
  event: APIGatewayProxyEventV2,
  context: Context,
) => Promise<APIGatewayProxyStructuredResultV2>;

/** Invoke a Lambda handler in-process with an HTTP-shaped event and decode its response. */
export const invoke = async <T = Record<string, unknown>>(
  handler: Handler,
  input: EventInput,
): Promise<TestResponse<T>> => {
  const result = await handler(httpEvent(input), context(input.timeoutMs));
  const text = result.body ?? '';
  const headers = Object.fromEntries(
    Object.entries(result.headers ?? {}).map(([k, v]) => [k.toLowerCase(), String(v)]),
  );
  const isJson = (headers['content-type'] ?? '').includes('application/json');
  return {
    status: result.statusCode ?? 200,
    headers,
    body: (isJson && text ? JSON.parse(text) : text) as T,
    text,
  };
};

/** The URL serverless offline serves the API at (set by the test stack). */
export const apiBaseUrl = (): string => {
  const url = process.env.API_BASE_URL;
  if (!url) throw new Error('API_BASE_URL is not set: the test stack did not start serverless offline');
  return url;
};
