// Secrets Manager through the official client: each secret read once per container (keyed by its id, so a
// function that reads two secrets holds both), a failed read retried on the next use.
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';

let client: SecretsManagerClient | undefined;
const values = new Map<string, Promise<string>>();

/** The text of the secret `secretId` (its current version). */
export const readSecretString = (secretId: string): Promise<string> => {
  let value = values.get(secretId);
  if (!value) {
    client ??= new SecretsManagerClient({ maxAttempts: 4 });
    value = client
      .send(new GetSecretValueCommand({ SecretId: secretId }))
      .then((answer) => answer.SecretString ?? '');
    values.set(secretId, value);
    value.catch(() => values.delete(secretId));
  }
  return value;
};
