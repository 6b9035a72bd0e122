// The deploy config is generated from the code (scripts/deploy-config.ts): every module that reaches AWS must say
// what it reaches (infra/access.ts). That the committed file is what the generator writes today is checked by
// `npm run lint` (lint:deploy-config): bundling every function costs ~25 s of CPU, too much for the unit tests.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ACCESS, CALLS, dynamoActionsIn } from '../../infra/access.js';

const ROOT = new URL('../../', import.meta.url);
const modules = ['lib', 'functions'].flatMap((dir) =>
  readdirSync(new URL(dir, ROOT), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.generated.ts'))
    .map((file) => `${dir}/${file}`),
);
const sourceOf = (path: string) => readFileSync(new URL(path, ROOT), 'utf8');

const dynamoActions = (source: string) => dynamoActionsIn(source).map((action) => `dynamodb:${action}`);

describe('deploy config', () => {
  it('declares the access of every module that reaches AWS, and of no module that is gone', () => {
    const reaching = modules.filter((path) => CALLS.test(sourceOf(path)) && path !== 'lib/core/config.ts');
    expect(reaching.filter((path) => !(path in ACCESS))).toEqual([]);
    expect(Object.keys(ACCESS).filter((path) => !modules.includes(path))).toEqual([]);
  });

  it('declares at least the DynamoDB actions each module’s own calls and transaction items use', () => {
    const missing: string[] = [];
    for (const [path, access] of Object.entries(ACCESS)) {
      // Generic helpers: the caller names the table and declares. The capacity counter's own reads run against
      // DynamoDB Local only (DYNAMODB_CAPACITY=count), never in AWS.
      if (path === 'lib/adapters/dynamodb.ts' || path === 'lib/adapters/capacity.ts') continue;
      const declared = new Set((access.grants ?? []).flatMap((grant) => grant.actions));
      for (const action of dynamoActions(sourceOf(path)))
        if (!declared.has(action)) missing.push(`${path}: ${action}`);
    }
    expect(missing).toEqual([]);
  });

  it('gives no function the secrets key itself: only the id of its retained secret and the right to read that one', () => {
    const service = parse(sourceOf('serverless.yml')) as {
      provider: { environment: Record<string, unknown> };
      custom: Record<string, unknown>;
      resources: {
        Resources: Record<
          string,
          { DeletionPolicy?: string; UpdateReplacePolicy?: string; Properties: Record<string, unknown> }
        >;
      };
    };
    const functions = parse(sourceOf('infra/functions.generated.yml')) as Record<
      string,
      {
        environment?: Record<string, unknown>;
        iamRoleStatements?: Array<{ Action: string[]; Resource: unknown }>;
      }
    >;
    // The deploying shell's key reaches no template: not the shared environment, not a serverless variable.
    expect(sourceOf('serverless.yml')).not.toMatch(/\$\{env:SECRETS_ENCRYPTION_KEY/);
    expect(Object.keys(service.provider.environment)).not.toContain('SECRETS_ENCRYPTION_KEY');
    expect(Object.keys(service.custom)).not.toContain('secretsEncryptionKey');
    const secret = service.resources.Resources.SecretsKeySecret;
    expect([secret?.DeletionPolicy, secret?.UpdateReplacePolicy]).toEqual(['Retain', 'Retain']);
    expect(secret?.Properties.SecretString).toBeUndefined();

    const secretRef = { Ref: 'SecretsKeySecret' };
    const named: string[] = [];
    const granted: string[] = [];
    for (const [name, fn] of Object.entries(functions)) {
      expect(Object.keys(fn.environment ?? {}), name).not.toContain('SECRETS_ENCRYPTION_KEY');
      const id = fn.environment?.SECRETS_KEY_SECRET_ID;
      if (id !== undefined) {
        expect(id, name).toEqual(secretRef);
        named.push(name);
      }
      const reads = (fn.iamRoleStatements ?? []).filter(
        (statement) => JSON.stringify(statement.Resource) === JSON.stringify(secretRef),
      );
      for (const statement of reads)
        expect(statement.Action, name).toEqual(['secretsmanager:GetSecretValue']);
      if (reads.length > 0) granted.push(name);
    }
    expect(named.length).toBeGreaterThan(0);
    expect(granted).toEqual(named);
    // The reader declares the secret, so exactly the functions that bundle it get both.
    // (and the KMS key the secrets are encrypted under when the deployer names one).
    expect(ACCESS['lib/adapters/secrets.ts']).toEqual({
      grants: [
        { resource: 'SecretsKeySecret', actions: ['secretsmanager:GetSecretValue'] },
        { resource: 'SecretsKmsKey', actions: ['kms:Decrypt'] },
      ],
      environment: { SECRETS_KEY_SECRET_ID: secretRef },
    });
  });
});
