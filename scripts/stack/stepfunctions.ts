// Step Functions stand-in: the AWS JSON 1.0 protocol (`X-Amz-Target: AWSStepFunctions.<Action>`) over HTTP, so
// handler code uses the real @aws-sdk/client-sfn unchanged through AWS_ENDPOINT_URL_SFN.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { StackLogger } from './log.js';
import {
  type ExecutionRecord,
  type ExecutionStatus,
  ExecutionStore,
  type MachineRecord,
  SfnError,
} from './sfn-executions.js';
import { type LambdaInvoker, offlineLambdaInvoker } from './sfn-lambda.js';
import type { LocalStateMachine } from './statemachines.js';

export interface StepFunctionsOptions {
  /** Port to listen on; 0 lets the OS choose. */
  port: number;
  region?: string;
  accountId?: string;
  /** serverless-offline's Lambda invoke API (`http://127.0.0.1:3002`); Task states invoke functions there. */
  lambdaInvokeUrl?: string;
  /** Replaces the HTTP invoker (tests can run Task states against in-process functions). */
  invoke?: LambdaInvoker;
  /** Machines to register at start (from serverless.yml). */
  stateMachines?: readonly LocalStateMachine[];
  /** Keep API-created machines and executions in this JSON file. */
  persistFile?: string;
  log?: StackLogger;
}

export interface LocalStepFunctions {
  endpoint: string;
  store: ExecutionStore;
  /** Registers (or replaces) a state machine and returns its ARN. */
  registerStateMachine(name: string, definition: unknown): string;
  stop(): Promise<void>;
}

type Body = Record<string, unknown>;
type Action = (body: Body) => Body;

const SILENT: StackLogger = { info() {}, warn() {}, error() {}, debug() {} };

/** Starts the stand-in HTTP server with the given state machines registered. */
export async function startStepFunctions(options: StepFunctionsOptions): Promise<LocalStepFunctions> {
  const log = options.log ?? SILENT;
  const invoke =
    options.invoke ?? (options.lambdaInvokeUrl ? offlineLambdaInvoker(options.lambdaInvokeUrl) : undefined);
  if (!invoke) throw new Error('startStepFunctions needs lambdaInvokeUrl or invoke');
  const store = new ExecutionStore({
    region: options.region ?? 'us-east-1',
    accountId: options.accountId ?? '000000000000',
    invoke,
    log,
    persistFile: options.persistFile,
  });
  for (const machine of options.stateMachines ?? []) {
    store.register({ name: machine.name, definition: machine.definition, error: machine.error });
  }
  const actions = apiActions(store);
  const server = createServer((request, response) => {
    void handle(actions, request, response, log);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    store,
    registerStateMachine: (name, definition) => store.register({ name, definition, created: true }).arn,
    stop: async () => {
      store.abortAll();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function handle(
  actions: Record<string, Action>,
  request: IncomingMessage,
  response: ServerResponse,
  log: StackLogger,
): Promise<void> {
  const target = String(request.headers['x-amz-target'] ?? '');
  const action = actions[target.replace(/^AWSStepFunctions\./, '')];
  try {
    const text = await readBody(request);
    if (!action)
      throw new SfnError('UnknownOperationException', `operation ${target || '(none)'} is not supported`);
    send(response, 200, action(text ? (JSON.parse(text) as Body) : {}));
  } catch (error) {
    if (error instanceof SfnError) {
      send(response, 400, { __type: error.name, message: error.message }, error.name);
    } else {
      log.error(`stepfunctions: ${target} failed: ${error instanceof Error ? error.stack : String(error)}`);
      send(response, 500, { __type: 'InternalFailure', message: String(error) }, 'InternalFailure');
    }
  }
}

function apiActions(store: ExecutionStore): Record<string, Action> {
  return {
    StartExecution: (body) => {
      const record = store.start({
        stateMachineArn: required(body, 'stateMachineArn'),
        name: optional(body, 'name'),
        input: optional(body, 'input'),
      });
      return { executionArn: record.executionArn, startDate: seconds(record.startDate) };
    },
    DescribeExecution: (body) => describeExecution(store.execution(required(body, 'executionArn'))),
    ListExecutions: (body) => {
      const all = store.list(
        required(body, 'stateMachineArn'),
        optional(body, 'statusFilter') as ExecutionStatus,
      );
      return paginate(all.map(executionSummary), body, 'executions');
    },
    StopExecution: (body) => {
      const record = store.stop(
        required(body, 'executionArn'),
        optional(body, 'error'),
        optional(body, 'cause'),
      );
      return { stopDate: seconds(record.stopDate ?? Date.now()) };
    },
    GetExecutionHistory: (body) => {
      const events = [...store.execution(required(body, 'executionArn')).history];
      if (body.reverseOrder === true) events.reverse();
      const timed = events.map((event) => ({ ...event, timestamp: seconds(event.timestamp) }));
      return paginate(timed, body, 'events');
    },
    CreateStateMachine: (body) => {
      const name = required(body, 'name');
      const definition = parseDefinition(required(body, 'definition'));
      const existing = store.listMachines().find((machine) => machine.name === name);
      if (existing && existing.definition !== JSON.stringify(definition)) {
        throw new SfnError('StateMachineAlreadyExists', `State Machine Already Exists: '${existing.arn}'`);
      }
      const record = existing ?? registerValid(store, name, definition, optional(body, 'type'));
      return { stateMachineArn: record.arn, creationDate: seconds(record.creationDate) };
    },
    UpdateStateMachine: (body) => {
      const machine = store.machine(required(body, 'stateMachineArn'));
      const definition =
        body.definition === undefined ? JSON.parse(machine.definition) : parseDefinition(body.definition);
      registerValid(store, machine.name, definition, machine.type);
      return { updateDate: seconds(Date.now()) };
    },
    DescribeStateMachine: (body) => describeMachine(store.machine(required(body, 'stateMachineArn'))),
    ListStateMachines: (body) => paginate(store.listMachines().map(machineSummary), body, 'stateMachines'),
    DeleteStateMachine: (body) => {
      store.delete(required(body, 'stateMachineArn'));
      return {};
    },
  };
}

function registerValid(
  store: ExecutionStore,
  name: string,
  definition: unknown,
  type?: string,
): MachineRecord {
  const record = store.register({ name, definition, type, created: true });
  if (record.error) {
    store.delete(record.arn);
    throw new SfnError('InvalidDefinition', record.error);
  }
  return record;
}

function describeExecution(record: ExecutionRecord): Body {
  return {
    ...executionSummary(record),
    input: record.input,
    inputDetails: { included: true },
    ...(record.output === undefined ? {} : { output: record.output, outputDetails: { included: true } }),
    ...(record.error === undefined ? {} : { error: record.error }),
    ...(record.cause === undefined ? {} : { cause: record.cause }),
  };
}

function executionSummary(record: ExecutionRecord): Body {
  return {
    executionArn: record.executionArn,
    stateMachineArn: record.stateMachineArn,
    name: record.name,
    status: record.status,
    startDate: seconds(record.startDate),
    ...(record.stopDate === undefined ? {} : { stopDate: seconds(record.stopDate) }),
  };
}

function describeMachine(machine: MachineRecord): Body {
  return {
    ...machineSummary(machine),
    status: 'ACTIVE',
    definition: machine.definition,
    roleArn: `arn:aws:iam::000000000000:role/${machine.name}-local`,
  };
}

function machineSummary(machine: MachineRecord): Body {
  return {
    stateMachineArn: machine.arn,
    name: machine.name,
    type: machine.type,
    creationDate: seconds(machine.creationDate),
  };
}

// nextToken is the offset of the next page.
function paginate(items: Body[], body: Body, key: string): Body {
  const offset = Number(body.nextToken ?? 0) || 0;
  const size = Number(body.maxResults ?? 0) || 100;
  const page = items.slice(offset, offset + size);
  const next = offset + size < items.length ? { nextToken: String(offset + size) } : {};
  return { [key]: page, ...next };
}

function parseDefinition(value: unknown): unknown {
  if (typeof value !== 'string') throw new SfnError('InvalidDefinition', 'definition must be a JSON string');
  try {
    return JSON.parse(value);
  } catch {
    throw new SfnError('InvalidDefinition', 'definition is not valid JSON');
  }
}

function required(body: Body, key: string): string {
  const value = body[key];
  if (typeof value !== 'string' || value === '')
    throw new SfnError('ValidationException', `${key} is required`);
  return value;
}

function optional(body: Body, key: string): string | undefined {
  const value = body[key];
  return typeof value === 'string' ? value : undefined;
}

function seconds(epochMs: number): number {
  return epochMs / 1000;
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

function send(response: ServerResponse, status: number, body: Body, errorType?: string): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/x-amz-json-1.0',
    'content-length': Buffer.byteLength(text),
    ...(errorType ? { 'x-amzn-errortype': errorType } : {}),
    'x-amzn-requestid': randomUUID(),
  });
  response.end(text);
}
