// The launch state machine seen from the launch endpoint: StartExecution with the real @aws-sdk/client-sfn. The
// endpoint comes from AWS_ENDPOINT_URL_SFN when set (the local Step Functions stand-in).
import { SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';

let client: SFNClient | undefined;

/**
 * Start one execution per job, named after the job: Step Functions answers a repeated start of a running
 * execution with the same name and input with that execution, so a retried call cannot start a second launch.
 */
export const startLaunchExecution = async (stateMachineArn: string, jobId: string): Promise<string> => {
  client ??= new SFNClient({ maxAttempts: 3 });
  const { executionArn } = await client.send(
    new StartExecutionCommand({ stateMachineArn, name: jobId, input: JSON.stringify({ jobId }) }),
  );
  if (!executionArn) throw new Error('StartExecution answered without an execution ARN');
  return executionArn;
};
