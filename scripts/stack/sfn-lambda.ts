// Task states → Lambda invocations through serverless-offline's invoke API, with the error name restored.
import type { StackLogger } from './log.js';

type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
/** A local implementation of one Task state, as aws-local-stepfunctions' `taskResourceLocalHandlers` expects. */
export type TaskHandler = (input: JsonValue) => Promise<JsonValue>;

/** Invokes a function by name and returns its result, or throws an error named like the handler's error. */
export type LambdaInvoker = (functionName: string, payload: unknown) => Promise<JsonValue>;

/** A failed task: `name` is what Retry/Catch `ErrorEquals` match, `message` becomes the Cause. */
export class TaskError extends Error {
  constructor(name: string, cause: string) {
    super(cause);
    this.name = name;
  }
}

const LAMBDA_ARN = /^arn:aws[\w-]*:lambda:[^:]*:[^:]*:function:([^:]+)(?::[^:]+)?$/;
const LAMBDA_INVOKE = /^arn:aws[\w-]*:states:::lambda:invoke(\.waitForTaskToken)?$/;

/** Function name from a Lambda ARN, a `name:qualifier` or a plain name. */
export function functionNameOf(reference: string): string {
  return LAMBDA_ARN.exec(reference)?.[1] ?? reference.split(':')[0] ?? reference;
}

/** An invoker that calls serverless-offline at `lambdaInvokeUrl` (`POST /2015-03-31/functions/<name>/invocations`). */
export function offlineLambdaInvoker(lambdaInvokeUrl: string): LambdaInvoker {
  return async (functionName, payload) => {
    const url = `${lambdaInvokeUrl}/2015-03-31/functions/${encodeURIComponent(functionName)}/invocations`;
    let response: Response;
    try {
      response = await fetch(url, { method: 'POST', body: JSON.stringify(payload ?? {}) });
    } catch (error) {
      throw new TaskError('Lambda.ServiceException', `cannot reach ${lambdaInvokeUrl}: ${String(error)}`);
    }
    const text = await response.text();
    const body = parseJson(text);
    if (response.status === 404) throw new TaskError('Lambda.ResourceNotFoundException', text);
    if (!response.ok) throw new TaskError('Lambda.ServiceException', `HTTP ${response.status}: ${text}`);
    if (response.headers.get('x-amz-function-error')) {
      const error = (body ?? {}) as Record<string, unknown>;
      // The Cause of a Lambda failure in Step Functions is the error JSON; keep AWS's field names.
      throw new TaskError(
        restoredErrorName(error),
        JSON.stringify({
          errorType: restoredErrorName(error),
          errorMessage: error.errorMessage,
          trace: error.trace,
        }),
      );
    }
    return (body ?? null) as JsonValue;
  };
}

// serverless-offline reports every thrown error with errorType "Error"; the real name survives as the first
// line of the stack trace ("RetryableError: message"), which the V8 serializer keeps across worker threads.
function restoredErrorName(error: Record<string, unknown>): string {
  const reported = typeof error.errorType === 'string' ? error.errorType : 'Error';
  if (reported !== 'Error') return reported;
  if (error.errorMessage === '[504] - Lambda timeout.') return 'Sandbox.Timedout';
  const trace = Array.isArray(error.trace) ? error.trace : [];
  const header = typeof trace[0] === 'string' ? trace[0] : '';
  return /^([A-Za-z_$][\w$.-]*)(?::|$)/.exec(header)?.[1] ?? reported;
}

function parseJson(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Local handlers for every Task state of `definition` (Map and Parallel branches included), keyed by state name. */
export function taskHandlers(
  definition: unknown,
  invoke: LambdaInvoker,
  log: StackLogger,
): Record<string, TaskHandler> {
  const handlers: Record<string, TaskHandler> = {};
  const resources = new Map<string, string>();
  for (const [stateName, state] of taskStates(definition)) {
    const resource = typeof state.Resource === 'string' ? state.Resource : '';
    if (resources.has(stateName) && resources.get(stateName) !== resource) {
      log.warn(
        `stepfunctions: Task states named ${stateName} call different resources; the last one wins locally`,
      );
    }
    resources.set(stateName, resource);
    handlers[stateName] = handlerFor(stateName, resource, invoke, log);
  }
  return handlers;
}

function handlerFor(
  stateName: string,
  resource: string,
  invoke: LambdaInvoker,
  log: StackLogger,
): TaskHandler {
  const direct = LAMBDA_ARN.exec(resource);
  if (direct?.[1]) {
    const functionName = direct[1];
    return (input) => invoke(functionName, input);
  }
  const integration = LAMBDA_INVOKE.exec(resource);
  if (integration && !integration[1]) {
    return async (input) => {
      const parameters = (input ?? {}) as Record<string, JsonValue>;
      if (typeof parameters.FunctionName !== 'string') {
        throw new TaskError('States.Runtime', `${stateName}: lambda:invoke needs Parameters.FunctionName`);
      }
      const payload = await invoke(functionNameOf(parameters.FunctionName), parameters.Payload ?? {});
      return { ExecutedVersion: '$LATEST', Payload: payload, StatusCode: 200 };
    };
  }
  log.warn(
    `stepfunctions: Task ${stateName} uses ${resource || 'a non-string resource'}, which has no local stand-in`,
  );
  return async () => {
    throw new TaskError(
      'States.Runtime',
      `${stateName}: resource ${resource} is not supported by the local stand-in`,
    );
  };
}

type StateDefinition = Record<string, unknown>;

function* taskStates(definition: unknown): Generator<[string, StateDefinition]> {
  const states = (definition as { States?: Record<string, StateDefinition> } | undefined)?.States ?? {};
  for (const [name, state] of Object.entries(states)) {
    if (state.Type === 'Task') yield [name, state];
    if (state.Type === 'Map') yield* taskStates(state.ItemProcessor ?? state.Iterator);
    if (state.Type === 'Parallel' && Array.isArray(state.Branches)) {
      for (const branch of state.Branches) yield* taskStates(branch);
    }
  }
}
