// The launch state machine's executions seen from the sweeper: DescribeExecution and StopExecution with the real
// @aws-sdk/client-sfn. Starting one is execution-start.ts, apart: the deploy config grants a function the access of
// the modules it bundles (infra/access.ts), and the launch endpoint starts executions, never stops them.
import { DescribeExecutionCommand, StopExecutionCommand } from '@aws-sdk/client-sfn';
import { sfn } from './sfn.js';

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
