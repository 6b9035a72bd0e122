// State machines declared under `stepFunctions.stateMachines` (serverless-step-functions format), made local.
import type { ServerlessConfig } from './config.js';
import { type LocalRef, type RefScope, resolveIntrinsics } from './intrinsics.js';

/** A state machine ready for the Step Functions stand-in. */
export interface LocalStateMachine {
  /** Key under `stepFunctions.stateMachines`. */
  key: string;
  /** CloudFormation logical id (`id`, else `<Key>StepFunctionsStateMachine`, as serverless-step-functions names it). */
  logicalId: string;
  name: string;
  arn: string;
  /** The ASL definition with intrinsic functions resolved to local values. */
  definition: unknown;
  /** Set when the definition could not be made local; StartExecution then fails with this message. */
  error?: string;
}

/** ARN of a state machine on the local stand-in. */
export function stateMachineArn(region: string, accountId: string, name: string): string {
  return `arn:aws:states:${region}:${accountId}:stateMachine:${name}`;
}

/** `Ref`/`Fn::GetAtt` values of every declared state machine (Ref is the ARN, as in CloudFormation). */
export function stateMachineRefs(
  config: ServerlessConfig,
  region: string,
  accountId: string,
): Map<string, LocalRef> {
  const refs = new Map<string, LocalRef>();
  for (const [key, machine] of Object.entries(config.stepFunctions?.stateMachines ?? {})) {
    const name = machine.name ?? key;
    const arn = stateMachineArn(region, accountId, name);
    refs.set(logicalIdOf(key, machine.id), { ref: arn, attributes: { Arn: arn, Name: name } });
  }
  return refs;
}

/** The declared state machines with definitions resolved against `scope` (functions, queues, tables, ...). */
export function localStateMachines(
  config: ServerlessConfig,
  scope: RefScope,
  region: string,
  accountId: string,
): LocalStateMachine[] {
  return Object.entries(config.stepFunctions?.stateMachines ?? {}).map(([key, machine]) => {
    const name = machine.name ?? key;
    const base = {
      key,
      logicalId: logicalIdOf(key, machine.id),
      name,
      arn: stateMachineArn(region, accountId, name),
    };
    try {
      const raw =
        typeof machine.definition === 'string' ? JSON.parse(machine.definition) : machine.definition;
      if (raw === undefined) throw new Error('no definition');
      return { ...base, definition: resolveIntrinsics(raw, scope) };
    } catch (error) {
      return {
        ...base,
        definition: undefined,
        error: error instanceof Error ? error.message : String(error),
      };
    }
  });
}

function logicalIdOf(key: string, id: string | undefined): string {
  if (id) return id;
  const normalized = key.replace(/-/g, 'Dash').replace(/_/g, 'Underscore');
  return `${normalized.charAt(0).toUpperCase()}${normalized.slice(1)}StepFunctionsStateMachine`;
}
