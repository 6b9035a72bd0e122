// AWS::SecretsManager::Secret → a secret on the local Secrets Manager stand-in (idempotent: a secret that exists,
// kept from an earlier run, keeps its value, as a deployed stack's secret does across updates).
import {
  CreateSecretCommand,
  DescribeSecretCommand,
  GetRandomPasswordCommand,
  type SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import type { CfnResource } from './config.js';
import { type RefScope, resolveIntrinsics, resolveString } from './intrinsics.js';
import type { PasswordOptions } from './secrets-manager.js';

/** A secret as it exists locally. */
export interface ProvisionedSecret {
  logicalId: string;
  name: string;
  arn: string;
}

/** CloudFormation's GenerateSecretString: GetRandomPassword's parameters and where the value goes. */
interface GenerateSecretString extends PasswordOptions {
  SecretStringTemplate?: string;
  GenerateStringKey?: string;
}

/**
 * The value CloudFormation would create: SecretString as given, generated as GenerateSecretString says, or none
 * (an empty secret, whose value someone puts later: GetSecretValue fails until then).
 */
async function initialValue(
  client: SecretsManagerClient,
  props: Record<string, unknown>,
): Promise<string | undefined> {
  if (typeof props.SecretString === 'string') return props.SecretString;
  const generate = props.GenerateSecretString as GenerateSecretString | undefined;
  if (!generate) return undefined;
  const { SecretStringTemplate: template, GenerateStringKey: key, ...password } = generate;
  const { RandomPassword = '' } = await client.send(new GetRandomPasswordCommand(password));
  if (template === undefined) return RandomPassword;
  if (!key) throw new Error('GenerateSecretString with SecretStringTemplate needs GenerateStringKey');
  return JSON.stringify({ ...(JSON.parse(template) as object), [key]: RandomPassword });
}

/** Creates the secret unless it exists; returns its name and ARN (what `Ref` gives). */
export async function ensureSecret(
  client: SecretsManagerClient,
  logicalId: string,
  resource: CfnResource,
  scope: RefScope,
): Promise<ProvisionedSecret> {
  const props = resolveIntrinsics(resource.Properties ?? {}, scope) as Record<string, unknown>;
  const name =
    resource.Properties?.Name === undefined
      ? `${logicalId}-${scope.pseudo['AWS::StackName']}`
      : resolveString(resource.Properties.Name, scope);
  try {
    const existing = await client.send(new DescribeSecretCommand({ SecretId: name }));
    return { logicalId, name, arn: existing.ARN ?? '' };
  } catch (error) {
    if (!(error instanceof Error && error.name === 'ResourceNotFoundException')) throw error;
  }
  const value = await initialValue(client, props);
  const created = await client.send(
    new CreateSecretCommand({
      Name: name,
      ...(value === undefined ? {} : { SecretString: value }),
      ...(typeof props.Description === 'string' ? { Description: props.Description } : {}),
    }),
  );
  return { logicalId, name, arn: created.ARN ?? '' };
}
