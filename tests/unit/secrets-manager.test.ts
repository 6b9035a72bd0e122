// The local Secrets Manager stand-in (scripts/stack/secrets-manager.ts) speaks the service's contract: the real
// SDK client works against it, unsigned or malformed requests get AWS's answers, errors carry `__type`, and the
// secrets serverless.yml declares are provisioned from their definitions, once.
import { readFileSync } from 'node:fs';
import {
  CreateSecretCommand,
  GetSecretValueCommand,
  PutSecretValueCommand,
  ResourceExistsException,
  ResourceNotFoundException,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { CfnResource } from '../../scripts/stack/config.js';
import type { RefScope } from '../../scripts/stack/intrinsics.js';
import { resolvePorts } from '../../scripts/stack/ports.js';
import { ensureSecret } from '../../scripts/stack/provision-secrets.js';
import {
  type LocalSecretsManager,
  randomPassword,
  startLocalSecretsManager,
} from '../../scripts/stack/secrets-manager.js';

let server: LocalSecretsManager;
let client: SecretsManagerClient;

beforeAll(async () => {
  server = await startLocalSecretsManager({
    port: (await resolvePorts('free')).secretsManager,
    region: 'us-east-1',
    accountId: '000000000000',
  });
  client = new SecretsManagerClient({
    region: 'us-east-1',
    endpoint: server.endpoint,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
});
afterAll(async () => {
  client.destroy();
  await server.stop();
});

const post = (headers: Record<string, string>, body = '{}') =>
  fetch(`${server.endpoint}/`, { method: 'POST', headers, body });

/** serverless.yml as a deploy that names no KMS key resolves it (`SECRETS_KMS_KEY_ARN` unset: the default key). */
const defaultTemplate = () =>
  parse(
    readFileSync(new URL('../../serverless.yml', import.meta.url), 'utf8').replaceAll(
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a serverless variable
      "${env:SECRETS_KMS_KEY_ARN, ''}",
      '',
    ),
  ) as { resources: { Resources: Record<string, CfnResource>; Conditions: Record<string, unknown> } };

describe('the local Secrets Manager', () => {
  it('stores, reads by name or ARN, and replaces a secret through the SDK client', async () => {
    const created = await client.send(new CreateSecretCommand({ Name: 'unit/one', SecretString: 'first' }));
    expect(created.ARN).toMatch(
      /^arn:aws:secretsmanager:us-east-1:000000000000:secret:unit\/one-[A-Za-z0-9]{6}$/,
    );
    const byName = await client.send(new GetSecretValueCommand({ SecretId: 'unit/one' }));
    expect(byName).toMatchObject({ ARN: created.ARN, Name: 'unit/one', SecretString: 'first' });
    expect(byName.VersionStages).toEqual(['AWSCURRENT']);
    expect(byName.CreatedDate).toBeInstanceOf(Date);
    await client.send(new PutSecretValueCommand({ SecretId: created.ARN, SecretString: 'second' }));
    const byArn = await client.send(new GetSecretValueCommand({ SecretId: created.ARN }));
    expect(byArn.SecretString).toBe('second');
    expect(byArn.VersionId).not.toBe(byName.VersionId);
    await expect(
      client.send(new CreateSecretCommand({ Name: 'unit/one', SecretString: 'x' })),
    ).rejects.toThrow(ResourceExistsException);
  });

  it('answers an unknown secret with ResourceNotFoundException, as the SDK models it', async () => {
    const error = await client.send(new GetSecretValueCommand({ SecretId: 'unit/missing' })).catch((e) => e);
    expect(error).toBeInstanceOf(ResourceNotFoundException);
    expect(error.message).toBe("Secrets Manager can't find the specified secret.");
    expect(error.$metadata.httpStatusCode).toBe(400);
  });

  it('speaks JSON 1.1 with SigV4 only: unsigned, wrongly scoped and unknown requests get AWS’s error shapes', async () => {
    const json = { 'content-type': 'application/x-amz-json-1.1' };
    const signed = {
      ...json,
      authorization:
        'AWS4-HMAC-SHA256 Credential=local/20260101/us-east-1/secretsmanager/aws4_request, SignedHeaders=host, Signature=00',
    };
    const unsigned = await post({ ...json, 'x-amz-target': 'secretsmanager.GetSecretValue' });
    expect(unsigned.status).toBe(403);
    expect(await unsigned.json()).toEqual({
      __type: 'MissingAuthenticationTokenException',
      Message: 'Missing Authentication Token',
    });
    const otherService = await post({
      ...signed,
      authorization: signed.authorization.replace('/secretsmanager/', '/s3/'),
      'x-amz-target': 'secretsmanager.GetSecretValue',
    });
    expect(otherService.status).toBe(403);
    expect(((await otherService.json()) as { __type: string }).__type).toBe('InvalidSignatureException');
    const unknown = await post({ ...signed, 'x-amz-target': 'secretsmanager.RotateEverything' });
    expect(unknown.status).toBe(400);
    expect(unknown.headers.get('x-amzn-errortype')).toBe('UnknownOperationException');
    const missing = await post(
      { ...signed, 'x-amz-target': 'secretsmanager.GetSecretValue' },
      JSON.stringify({ SecretId: 'unit/nothing' }),
    );
    expect(missing.headers.get('content-type')).toBe('application/x-amz-json-1.1');
    expect(((await missing.json()) as { __type: string }).__type).toBe('ResourceNotFoundException');
  });

  it('generates passwords as GenerateSecretString asks', () => {
    const password = randomPassword({ PasswordLength: 64, ExcludePunctuation: true });
    expect(password).toMatch(/^[A-Za-z0-9]{64}$/);
    expect(randomPassword({ PasswordLength: 40, ExcludeCharacters: 'abc' })).not.toMatch(/[abc]/);
    expect(() => randomPassword({ PasswordLength: 0 })).toThrow();
  });

  it('provisions serverless.yml’s vault sealing secret from its definition, once: a second run keeps the value', async () => {
    const template = defaultTemplate();
    const resource = template.resources.Resources.VaultKeySecret as CfnResource;
    const scope: RefScope = {
      refs: new Map(),
      pseudo: { 'AWS::StackName': 'arcadia-unit' },
      conditions: template.resources.Conditions,
    };
    // The name is a serverless variable until `serverless print` resolves it; a literal stands in for it here.
    const definition = {
      ...resource,
      Properties: { ...resource.Properties, Name: 'arcadia-unit-vault-sealing-key' },
    };
    const first = await ensureSecret(client, 'VaultKeySecret', definition, scope);
    const value = await client.send(new GetSecretValueCommand({ SecretId: first.arn }));
    expect(value.SecretString).toMatch(/^[A-Za-z0-9]{64}$/);
    const second = await ensureSecret(client, 'VaultKeySecret', definition, scope);
    expect(second.arn).toBe(first.arn);
    expect((await client.send(new GetSecretValueCommand({ SecretId: second.arn }))).SecretString).toBe(
      value.SecretString,
    );
  });
  it('provisions serverless.yml’s secrets key secret empty, as CloudFormation does: no value until one is put, kept across runs', async () => {
    const template = defaultTemplate();
    const resource = template.resources.Resources.SecretsKeySecret as CfnResource;
    const scope: RefScope = {
      refs: new Map(),
      pseudo: { 'AWS::StackName': 'arcadia-unit' },
      conditions: template.resources.Conditions,
    };
    const definition = {
      ...resource,
      Properties: { ...resource.Properties, Name: 'arcadia-unit-secrets-key' },
    };
    const first = await ensureSecret(client, 'SecretsKeySecret', definition, scope);
    const empty = await client.send(new GetSecretValueCommand({ SecretId: first.arn })).catch((e) => e);
    expect(empty).toBeInstanceOf(ResourceNotFoundException);
    expect(empty.message).toMatch(/can't find the specified secret value for staging label: AWSCURRENT/);
    // What the deployer (here the stack scripts) does next; a later provisioning keeps the value put.
    const key = Buffer.alloc(32, 3).toString('base64');
    await client.send(new PutSecretValueCommand({ SecretId: first.arn, SecretString: key }));
    const second = await ensureSecret(client, 'SecretsKeySecret', definition, scope);
    expect(second.arn).toBe(first.arn);
    expect((await client.send(new GetSecretValueCommand({ SecretId: first.arn }))).SecretString).toBe(key);
  });
});
