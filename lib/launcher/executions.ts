// The launch state machine seen from the launch endpoint and the sweeper: StartExecution, DescribeExecution and
// StopExecution with the real @aws-sdk/client-sfn. The endpoint comes from AWS_ENDPOINT_URL_SFN when set (the
// local Step Functions stand-in).
import {
  DescribeExecutionCommand,
  SFNClient,
  StartExecutionCommand,
  StopExecutionCommand,
} from '@aws-sdk/client-sfn';

let client: SFNClient | undefined;
const sfn = () => {
  client ??= new SFNClient({ maxAttempts: 3 });
  return client;
};

/**
 * Start one execution per job, named after the job: Step Functions answers a repeated start of a running
 * execution with the same name and input with that execution, so a retried call cannot start a second launch.
 */
export const startLaunchExecution = async (stateMachineArn: string, jobId: string): Promise<string> => {
  const { executionArn } = await sfn().send(
    new StartExecutionCommand({ stateMachineArn, name: jobId, input: JSON.stringify({ jobId }) }),
  );
  if (!executionArn) throw new Error('StartExecution answered without an execution ARN');
  return executionArn;
};

/** An execution's status, or MISSING when it was never started. */
export type ExecutionStatus = 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'TIMED_OUT' | 'ABORTED' | 'MISSING';

/** The ARN of a job's execution (named after the job) under the state machine `stateMachineArn`. */
export const launchExecutionArn = (stateMachineArn: string, jobId: string): string =>
  `${stateMachineArn.replace(':stateMachine:', ':execution:')}:${jobId}`;

/** The status of an execution. */
export const describeLaunchExecution = async (executionArn: string): Promise<ExecutionStatus> => {
  try {
    const { status } = await sfn().send(new DescribeExecutionCommand({ executionArn }));
    return (status as ExecutionStatus | undefined) ?? 'RUNNING';
  } catch (error) {
    if ((error as { name?: string }).name === 'ExecutionDoesNotExist') return 'MISSING';
    throw error;
  }
};

/** Stop a running execution (a closed one is left as it is). */
export const stopLaunchExecution = async (executionArn: string, cause: string): Promise<void> => {
  await sfn().send(new StopExecutionCommand({ executionArn, error: 'LaunchDeadlineExceeded', cause }));
};
