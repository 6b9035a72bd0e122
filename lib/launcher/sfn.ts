import { SFNClient } from '@aws-sdk/client-sfn';

let client: SFNClient | undefined;
/** The container's Step Functions client. The endpoint comes from AWS_ENDPOINT_URL_SFN when set (the local stand-in). */
export const sfn = (): SFNClient => {
  client ??= new SFNClient({ maxAttempts: 3 });
  return client;
};
