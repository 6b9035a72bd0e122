// Starting the launch state machine, from the launch endpoint (describing and stopping: executions.ts).
import { StartExecutionCommand } from '@aws-sdk/client-sfn';
import { sfn } from './sfn.js';

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
