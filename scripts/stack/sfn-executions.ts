// State machines and their executions for the Step Functions stand-in, run by aws-local-stepfunctions.
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import {
  ExecutionAbortedError,
  ExecutionError,
  ExecutionTimeoutError,
  StateMachine,
  type StateMachineDefinition,
} from 'aws-local-stepfunctions';
import type { StackLogger } from './log.js';
import { type LambdaInvoker, type TaskHandler, taskHandlers } from './sfn-lambda.js';
import { stateMachineArn } from './statemachines.js';

/** An API error with the Step Functions error code as its name (`ExecutionDoesNotExist`, ...). */
export class SfnError extends Error {
  constructor(code: string, message: string) {
    super(message);
    this.name = code;
  }
}

export type ExecutionStatus = 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'TIMED_OUT' | 'ABORTED';

/** One execution as DescribeExecution reports it (dates in epoch milliseconds). */
export interface ExecutionRecord {
  executionArn: string;
  stateMachineArn: string;
  name: string;
  status: ExecutionStatus;
  startDate: number;
  stopDate?: number;
  input: string;
  output?: string;
  error?: string;
  cause?: string;
  history: HistoryEvent[];
}

/** A simplified GetExecutionHistory event. */
export interface HistoryEvent {
  id: number;
  previousEventId: number;
  timestamp: number;
  type: string;
  [details: string]: unknown;
}

/** A registered state machine. */
export interface MachineRecord {
  name: string;
  arn: string;
  type: string;
  creationDate: number;
  /** The definition as JSON text (what DescribeStateMachine returns). */
  definition: string;
  /** Why the definition cannot run locally, if it cannot. */
  error?: string;
  /** Whether it was created through the API (persisted) rather than declared in serverless.yml. */
  created?: boolean;
}

interface RuntimeMachine {
  machine: StateMachine;
  handlers: Record<string, TaskHandler>;
}

export interface ExecutionStoreOptions {
  region: string;
  accountId: string;
  invoke: LambdaInvoker;
  log: StackLogger;
  /** JSON file that keeps API-created machines and executions across restarts. */
  persistFile?: string;
}

/** Registered machines, their executions, and the runs in flight. */
export class ExecutionStore {
  private readonly machines = new Map<string, MachineRecord>();
  private readonly runtimes = new Map<string, RuntimeMachine>();
  private readonly executions = new Map<string, ExecutionRecord>();
  private readonly aborts = new Map<string, () => void>();
  private loading = false;

  constructor(private readonly options: ExecutionStoreOptions) {
    this.load();
  }

  /** Registers (or replaces) a state machine; an invalid definition is kept with its error. */
  register(input: {
    name: string;
    definition: unknown;
    type?: string;
    error?: string;
    created?: boolean;
  }): MachineRecord {
    const arn = stateMachineArn(this.options.region, this.options.accountId, input.name);
    const record: MachineRecord = {
      name: input.name,
      arn,
      type: input.type ?? 'STANDARD',
      creationDate: this.machines.get(arn)?.creationDate ?? Date.now(),
      definition: JSON.stringify(input.definition ?? null),
      error: input.error,
      created: input.created,
    };
    this.runtimes.delete(arn);
    if (!record.error) {
      try {
        const definition = input.definition as StateMachineDefinition;
        this.runtimes.set(arn, {
          machine: new StateMachine(definition),
          handlers: taskHandlers(definition, this.options.invoke, this.options.log),
        });
      } catch (error) {
        record.error = error instanceof Error ? error.message : String(error);
        this.options.log.error(`stepfunctions: state machine ${input.name} is invalid: ${record.error}`);
      }
    }
    this.machines.set(arn, record);
    if (record.created) this.save();
    return record;
  }

  /** Removes a state machine (its executions stay describable). */
  delete(arn: string): void {
    const machine = this.machine(arn);
    this.machines.delete(machine.arn);
    this.runtimes.delete(machine.arn);
    this.save();
  }

  /** The machine with this ARN; lenient on region and account (matches on the name). */
  machine(arn: string): MachineRecord {
    const exact = this.machines.get(arn);
    if (exact) return exact;
    const name = arn.split(':').at(-1);
    const byName = [...this.machines.values()].find((machine) => machine.name === name);
    if (!byName) throw new SfnError('StateMachineDoesNotExist', `State Machine Does Not Exist: '${arn}'`);
    return byName;
  }

  listMachines(): MachineRecord[] {
    return [...this.machines.values()];
  }

  /** Starts an execution (idempotent for a running execution with the same name and input). */
  start(input: { stateMachineArn: string; name?: string; input?: string }): ExecutionRecord {
    const machine = this.machine(input.stateMachineArn);
    const runtime = this.runtimes.get(machine.arn);
    if (!runtime) throw new SfnError('InvalidDefinition', machine.error ?? 'definition cannot run locally');
    const name = input.name ?? randomUUID();
    const executionArn = `arn:aws:states:${this.options.region}:${this.options.accountId}:execution:${machine.name}:${name}`;
    const text = input.input ?? '{}';
    const existing = this.executions.get(executionArn);
    if (existing) {
      if (existing.status === 'RUNNING' && existing.input === text) return existing;
      throw new SfnError('ExecutionAlreadyExists', `Execution Already Exists: '${executionArn}'`);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new SfnError('InvalidExecutionInput', 'Invalid State Machine Execution Input: not valid JSON');
    }
    const record: ExecutionRecord = {
      executionArn,
      stateMachineArn: machine.arn,
      name,
      status: 'RUNNING',
      startDate: Date.now(),
      input: text,
      history: [],
    };
    this.executions.set(executionArn, record);
    this.run(record, machine, runtime, parsed);
    this.save();
    return record;
  }

  execution(executionArn: string): ExecutionRecord {
    const record = this.executions.get(executionArn);
    if (!record) throw new SfnError('ExecutionDoesNotExist', `Execution Does Not Exist: '${executionArn}'`);
    return record;
  }

  /** Executions of one machine, newest first. */
  list(stateMachineArn: string, status?: ExecutionStatus): ExecutionRecord[] {
    const machine = this.machine(stateMachineArn);
    return [...this.executions.values()]
      .filter((record) => record.stateMachineArn === machine.arn && (!status || record.status === status))
      .sort((a, b) => b.startDate - a.startDate);
  }

  /** Aborts a running execution; a closed one is left as it is. */
  stop(executionArn: string, error?: string, cause?: string): ExecutionRecord {
    const record = this.execution(executionArn);
    if (record.status === 'RUNNING') {
      const abort = this.aborts.get(executionArn);
      this.close(record, { status: 'ABORTED', error, cause });
      abort?.();
    }
    return record;
  }

  /** Aborts every running execution (on shutdown). */
  abortAll(): void {
    for (const record of this.executions.values()) {
      if (record.status === 'RUNNING')
        this.stop(record.executionArn, 'States.Runtime', 'local stand-in stopped');
    }
  }

  private run(
    record: ExecutionRecord,
    machine: MachineRecord,
    runtime: RuntimeMachine,
    input: unknown,
  ): void {
    const startTime = new Date(record.startDate).toISOString();
    const execution = runtime.machine.run(input as never, {
      overrides: { taskResourceLocalHandlers: runtime.handlers },
      context: {
        Execution: { Id: record.executionArn, Name: record.name, StartTime: startTime, RoleArn: 'local' },
        StateMachine: { Id: machine.arn, Name: machine.name },
      },
    });
    this.aborts.set(record.executionArn, execution.abort);
    void recordHistory(record, execution.eventLogs);
    execution.result.then(
      (output) => this.close(record, { status: 'SUCCEEDED', output: JSON.stringify(output ?? null) }),
      (error: unknown) => this.close(record, outcomeOf(error)),
    );
  }

  private close(
    record: ExecutionRecord,
    outcome: Partial<ExecutionRecord> & { status: ExecutionStatus },
  ): void {
    this.aborts.delete(record.executionArn);
    if (record.status !== 'RUNNING') return;
    Object.assign(record, outcome, { stopDate: Date.now() });
    const detail = record.error ? ` ${record.error}` : '';
    this.options.log.debug(`stepfunctions: ${record.name} ${record.status}${detail}`);
    this.save();
  }

  private load(): void {
    const file = this.options.persistFile;
    if (!file) return;
    this.loading = true;
    try {
      this.restore(file);
    } finally {
      this.loading = false;
    }
  }

  private restore(file: string): void {
    let saved: { machines?: MachineRecord[]; executions?: ExecutionRecord[] };
    try {
      saved = JSON.parse(readFileSync(file, 'utf8'));
    } catch {
      return;
    }
    for (const machine of saved.machines ?? []) {
      this.register({ ...machine, definition: JSON.parse(machine.definition) });
    }
    for (const record of saved.executions ?? []) {
      // Runs do not survive a restart: report an interrupted run the way an aborted one is reported.
      if (record.status === 'RUNNING') {
        Object.assign(record, { status: 'ABORTED', stopDate: Date.now(), cause: 'local stand-in restarted' });
      }
      this.executions.set(record.executionArn, record);
    }
  }

  private save(): void {
    const file = this.options.persistFile;
    if (!file || this.loading) return;
    const machines = [...this.machines.values()].filter((machine) => machine.created);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(`${file}.tmp`, JSON.stringify({ machines, executions: [...this.executions.values()] }));
    renameSync(`${file}.tmp`, file);
  }
}

function outcomeOf(error: unknown): Partial<ExecutionRecord> & { status: ExecutionStatus } {
  if (error instanceof ExecutionAbortedError) return { status: 'ABORTED' };
  if (error instanceof ExecutionTimeoutError) return { status: 'TIMED_OUT', error: 'States.Timeout' };
  const cause = error instanceof ExecutionError ? error.cause : error;
  if (cause instanceof Error) return { status: 'FAILED', error: cause.name, cause: cause.message };
  return { status: 'FAILED', error: 'States.Runtime', cause: String(cause) };
}

type LibraryEvent = { type: string; timestamp: number; [key: string]: unknown };

// Translates the library's event log into a GetExecutionHistory-shaped list (a useful subset, not all of AWS's).
async function recordHistory(record: ExecutionRecord, events: AsyncGenerator<unknown>): Promise<void> {
  for await (const raw of events) {
    const event = raw as LibraryEvent;
    const state = event.state as
      | { name: string; type: string; input?: unknown; output?: unknown }
      | undefined;
    const details = historyDetails(event, state);
    if (!details) continue;
    const id = record.history.length + 1;
    record.history.push({ id, previousEventId: id - 1, timestamp: event.timestamp, ...details });
  }
}

function historyDetails(
  event: LibraryEvent,
  state: { name: string; type: string; input?: unknown; output?: unknown } | undefined,
): { type: string; [details: string]: unknown } | undefined {
  const json = (value: unknown) => JSON.stringify(value ?? null);
  switch (event.type) {
    case 'ExecutionStarted':
      return { type: 'ExecutionStarted', executionStartedEventDetails: { input: json(event.input) } };
    case 'ExecutionSucceeded':
      return { type: 'ExecutionSucceeded', executionSucceededEventDetails: { output: json(event.output) } };
    case 'ExecutionFailed':
      return {
        type: 'ExecutionFailed',
        executionFailedEventDetails: { error: event.Error, cause: String(event.Cause) },
      };
    case 'ExecutionAborted':
      return { type: 'ExecutionAborted', executionAbortedEventDetails: {} };
    case 'ExecutionTimeout':
      return { type: 'ExecutionTimedOut', executionTimedOutEventDetails: {} };
    case 'StateEntered':
      return {
        type: `${state?.type}StateEntered`,
        stateEnteredEventDetails: { name: state?.name, input: json(state?.input) },
      };
    case 'StateExited':
      return {
        type: `${state?.type}StateExited`,
        stateExitedEventDetails: { name: state?.name, output: json(state?.output) },
      };
    case 'StateFailed':
      return state?.type === 'Task'
        ? { type: 'TaskFailed', taskFailedEventDetails: { error: event.Error, cause: String(event.Cause) } }
        : undefined;
    default:
      return undefined;
  }
}
