import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import JSZip from 'jszip';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessOf, statementsOf as declaredStatements, type ModuleAccess } from '../../infra/access.js';
import { contracts } from '../../lib/api/catalogue.js';
import { VALID_SETTINGS } from '../fixtures/settings.js';

interface Resource {
  Type: string;
  Properties: Record<string, unknown>;
  DeletionPolicy?: string;
  UpdateReplacePolicy?: string;
}

interface Statement {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
}

const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'arcadia-package-'));
let resources: Record<string, Resource> = {};

const cfName = (fn: string) => `${fn[0]?.toUpperCase()}${fn.slice(1)}`;
const ofType = (type: string) => Object.entries(resources).filter(([, r]) => r.Type === type);

beforeAll(async () => {
  // Packaged as for AWS: without the local stack's IMAGES_BASE_URL, which the tests' environment carries.
  const { IMAGES_BASE_URL: _local, ...env } = process.env;
  await run('serverless', ['package', '--package', dir], {
    cwd: new URL('../..', import.meta.url).pathname,
    env,
    // ~60 s on an idle 2-core machine; several times that when other stacks run beside it.
    timeout: 420_000,
  });
  const template = JSON.parse(readFileSync(join(dir, 'cloudformation-template-update-stack.json'), 'utf8'));
  resources = template.Resources;
}, 440_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The original sources of a function's bundle, from its source map. */
const sourcesOf = async (zip: string) => {
  const archive = await JSZip.loadAsync(readFileSync(join(dir, zip)));
  const map = Object.keys(archive.files).find((f) => f.endsWith('.mjs.map'));
  const text = map ? await archive.file(map)?.async('string') : undefined;
  return text ? (JSON.parse(text) as { sources: string[] }).sources : [];
};

describe('serverless package', () => {
  it('has one function per contract, each behind its HTTP API route', () => {
    const routeKeys = ofType('AWS::ApiGatewayV2::Route').map(([, r]) => r.Properties.RouteKey);
    for (const contract of contracts) {
      expect(resources[`${cfName(contract.operationId)}LambdaFunction`]?.Type, contract.operationId).toBe(
        'AWS::Lambda::Function',
      );
      expect(routeKeys).toContain(`${contract.method} ${contract.path}`);
    }
    expect(routeKeys).toContain('$default');
  });

  it('runs every function on nodejs22.x arm64', () => {
    for (const [, fn] of ofType('AWS::Lambda::Function')) {
      expect(fn.Properties.Runtime).toBe('nodejs22.x');
      expect(fn.Properties.Architectures).toEqual(['arm64']);
    }
  });

  it('gives functions that touch user data their own role, scoped to the tables they use', () => {
    const role = resources.GetMeIamRoleLambdaExecution;
    expect(role?.Type).toBe('AWS::IAM::Role');
    // X-Ray's write actions take "*" (they have no resource-level permissions): every other grant names its table.
    const statements = JSON.stringify(statementsOf('GetMeIamRoleLambdaExecution').filter((s) => !isXray(s)));
    expect(statements).toContain('UsersTable');
    expect(statements).not.toContain('GamesTable');
    expect(statements).not.toContain('"dynamodb:*"');
    expect(statements).not.toContain('"Resource":"*"');
  });

  it('bundles each function on its own, small, with the AWS SDK it was tested against', async () => {
    const zips = readdirSync(dir).filter((f) => f.endsWith('.zip'));
    expect(zips.length).toBe(Object.keys(ofType('AWS::Lambda::Function')).length);
    const swaggerFiles: Record<string, string[]> = {};
    for (const zip of zips) {
      expect(statSync(join(dir, zip)).size, zip).toBeLessThan(1_000_000);
      const files = Object.keys((await JSZip.loadAsync(readFileSync(join(dir, zip)))).files);
      const swagger = files.filter((f) => f.startsWith('node_modules/swagger-ui-dist/') && !f.endsWith('/'));
      if (swagger.length) swaggerFiles[zip] = swagger.sort();
    }
    // Swagger UI ships as two plain files (with its license), next to the bundle, in the reference page's zip only
    // (lib/api/reference/page.ts reads them on the first request).
    expect(swaggerFiles).toEqual({
      'apiReference.zip': [
        'node_modules/swagger-ui-dist/LICENSE',
        'node_modules/swagger-ui-dist/NOTICE',
        'node_modules/swagger-ui-dist/swagger-ui-bundle.js',
        'node_modules/swagger-ui-dist/swagger-ui-bundle.js.LICENSE.txt',
        'node_modules/swagger-ui-dist/swagger-ui.css',
      ],
    });
    // No function leaves an import to the runtime's SDK copy, whose version the tests never saw; and no bundle
    // imports node:http from ESM, which loads undici at init (lib/runtime/node-http.ts).
    const zip = await JSZip.loadAsync(readFileSync(join(dir, 'getGame.zip')));
    const getGame = (await zip.file('functions/games/get-game.mjs')?.async('string')) ?? '';
    // The DynamoDB JSON protocol's target prefix: the client itself is in the bundle.
    expect(getGame).toContain('DynamoDB_20120810');
    expect(getGame).not.toMatch(/from\s*"@aws-sdk\//);
    expect(getGame).not.toMatch(/from\s*"(node:)?http"/);
  });
  /** Packages bundled from more than one install folder (nested copies are separate modules). */
  const duplicatedPackages = (sources: string[]) => {
    const copies = new Map<string, Set<string>>();
    for (const source of sources) {
      const match = /^(.*node_modules\/)((?:@[^/]+\/)?[^/]+)\//.exec(source.replace(/^(\.\.\/)+/, ''));
      if (match?.[2]) copies.set(match[2], (copies.get(match[2]) ?? new Set()).add(`${match[1]}${match[2]}`));
    }
    return [...copies].filter(([, folders]) => folders.size > 1).map(([name, f]) => `${name} ×${f.size}`);
  };

  it('bundles one copy of each package, one zod locale, env-only AWS credentials, no S3 client, and @solana/kit, not web3.js', async () => {
    const duplicated: string[] = [];
    const s3Clients: string[] = [];
    const contractsOfOtherDomains: string[] = [];
    const handlers = Object.fromEntries(
      Object.values(resources)
        .filter((r) => r.Type === 'AWS::Lambda::Function')
        .map((r) => [
          String((r.Properties.Code as { S3Key?: string } | undefined)?.S3Key ?? '')
            .split('/')
            .pop()
            ?.replace(/\.zip$/, ''),
          String(r.Properties.Handler),
        ]),
    );
    const extraLocales: string[] = [];
    const credentialChains: string[] = [];
    for (const zip of readdirSync(dir).filter((f) => f.endsWith('.zip'))) {
      const sources = await sourcesOf(zip);
      duplicated.push(...duplicatedPackages(sources).map((d) => `${zip}: ${d}`));
      // Credentials from the environment only (lib/runtime/aws-credentials.ts): no SSO/profile/STS chain.
      if (sources.some((s) => /@aws-sdk\/(nested-clients|credential-provider-(?!env\/))/.test(s)))
        credentialChains.push(zip);
      // A function builds the zod schemas of its own domain's contracts only: importing another domain's
      // contracts module (for a constant, say) built all of its schemas at every cold start.
      const handler = String(handlers[zip.replace(/\.zip$/, '')] ?? '');
      const domain = /^functions\/([a-z]+)/.exec(handler)?.[1];
      for (const source of sources) {
        const contracts = /lib\/([a-z]+)\/(?:[a-z-]+-)?contracts\.ts$/.exec(source)?.[1];
        if (contracts && contracts !== domain) contractsOfOtherDomains.push(`${zip}: ${source}`);
      }
      // S3 goes through lib/adapters/s3.ts (the SDK's signer and HTTP handler), never the 166 KB client.
      if (sources.some((s) => s.includes('node_modules/@aws-sdk/client-s3/'))) s3Clients.push(zip);
      // zod/mini with the English messages only: a namespace used as a value would pull in every locale.
      const locales = sources.filter((source) => /zod\/v4\/locales\/(?!en\.js|index\.js)/.test(source));
      extraLocales.push(...locales.map((source) => `${zip}: ${source}`));
    }
    expect(duplicated).toEqual([]);
    expect(credentialChains).toEqual([]);
    expect(contractsOfOtherDomains).toEqual([]);
    expect(s3Clients).toEqual([]);
    expect(extraLocales.slice(0, 3)).toEqual([]);
    const purchase = await sourcesOf('purchaseMultiplier.zip');
    expect(purchase.some((s) => s.includes('node_modules/@solana/transactions/'))).toBe(true);
    expect(purchase.filter((s) => /@solana\/(web3\.js|spl-token)\//.test(s))).toEqual([]);
  });
  it('gives the functions that only read the chain the reader, without kit’s transaction and signer code', async () => {
    const readers = [
      'launchGameCoin',
      'completeLaunch',
      'getGameRewardsPool',
      'buildSnapshots',
      'getClaimStatus',
    ];
    const writing: string[] = [];
    for (const name of readers) {
      const sources = await sourcesOf(`${name}.zip`);
      expect(
        sources.some((s) => s.endsWith('lib/chain/reader.ts')),
        name,
      ).toBe(true);
      const signing = sources.filter((s) =>
        /lib\/chain\/chain\.ts$|@solana\/(signers|transaction-messages|transactions)\//.test(s),
      );
      writing.push(...signing.map((s) => `${name}: ${s}`));
    }
    expect(writing).toEqual([]);
    // The functions that sign still do (the reader did not swallow the writer).
    const claims = await sourcesOf('buildClaimTransactions.zip');
    expect(claims.some((s) => s.includes('node_modules/@solana/signers/'))).toBe(true);
  });
  it('every bundle loads in a fresh Node process (module init succeeds with the aliases and the bundled SDK)', async () => {
    const work = mkdtempSync(join(tmpdir(), 'arcadia-bundles-'));
    try {
      const handlers = Object.entries(resources)
        .filter(([, r]) => r.Type === 'AWS::Lambda::Function')
        .map(([, r]) => ({
          zip:
            String((r.Properties.Code as { S3Key?: string } | undefined)?.S3Key ?? '')
              .split('/')
              .pop() ?? '',
          handler: String(r.Properties.Handler),
          // The function's environment as Lambda gives it: the template's variables (a name CloudFormation
          // resolves at deploy, a Ref or GetAtt, as a placeholder), and the settings a deployer gives at deploy
          // time (empty in a package made without them) as the pure tests' valid settings.
          environment: {
            ...VALID_SETTINGS,
            ...Object.fromEntries(
              Object.entries(
                (r.Properties.Environment as { Variables?: Record<string, unknown> } | undefined)
                  ?.Variables ?? {},
              )
                .filter(([, v]) => v !== '')
                .map(([k, v]) => [k, typeof v === 'string' ? v : `https://resolved-at-deploy.invalid/${k}`]),
            ),
          },
        }));
      const failures: string[] = [];
      // Two at a time: each import is a fresh process, as a Lambda cold start is.
      for (let i = 0; i < handlers.length; i += 2) {
        await Promise.all(
          handlers.slice(i, i + 2).map(async ({ zip, handler, environment }) => {
            const archive = await JSZip.loadAsync(readFileSync(join(dir, zip)));
            const path = `${handler.replace(/\.[^.]+$/, '')}.mjs`;
            const file = join(work, zip, path);
            mkdirSync(dirname(file), { recursive: true });
            writeFileSync(file, (await archive.file(path)?.async('nodebuffer')) ?? '');
            const script = `const m=await import(${JSON.stringify(pathToFileURL(file).href)});if(typeof m.handler!=='function')throw new Error('no handler export');`;
            await run(process.execPath, ['--input-type=module', '-e', script], {
              env: { PATH: process.env.PATH ?? '', AWS_REGION: 'us-east-1', ...environment },
              timeout: 60_000,
            }).catch((error: { stderr?: string }) => {
              failures.push(
                `${zip}: ${String(error.stderr ?? error)
                  .trim()
                  .split('\n')
                  .filter((line) => /^\s*(\w*Error|Error \[)/.test(line))
                  .slice(0, 2)
                  .join(' / ')}`,
              );
            });
          }),
        );
      }
      expect(handlers.length).toBeGreaterThan(40);
      expect(failures).toEqual([]);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }, 180_000);
});

/** The logical ids a CloudFormation value refers to: Ref, Fn::GetAtt, and ${Id} or ${Id.Attribute} in Fn::Sub. */
const referencedIds = (value: unknown): string[] => {
  if (Array.isArray(value)) return value.flatMap(referencedIds);
  if (value === null || typeof value !== 'object') return [];
  const record = value as Record<string, unknown>;
  if (typeof record.Ref === 'string') return record.Ref.startsWith('AWS::') ? [] : [record.Ref];
  const getAtt = record['Fn::GetAtt'];
  if (Array.isArray(getAtt)) return [String(getAtt[0])];
  const sub = record['Fn::Sub'];
  if (sub !== undefined) {
    const [template, variables] = Array.isArray(sub) ? sub : [sub, {}];
    const ids = [...String(template).matchAll(/\$\{([A-Za-z0-9]+)(?:\.[A-Za-z0-9]+)?\}/g)].map(
      (m) => m[1] ?? '',
    );
    return [...ids.filter((id) => !(id in (variables as object))), ...referencedIds(variables)];
  }
  return Object.values(record).flatMap(referencedIds);
};

/** The resource an ARN value of the template points at ({"Fn::GetAtt": [Id, "Arn"]}). */
const targetOf = (arn: unknown) =>
  (arn as { 'Fn::GetAtt'?: [string, string] } | undefined)?.['Fn::GetAtt']?.[0];

const roleOf = (fn: Resource) => targetOf(fn.Properties.Role) ?? '';
const statementsOf = (role: string) =>
  (
    (resources[role]?.Properties.Policies ?? []) as Array<{ PolicyDocument: { Statement: Statement[] } }>
  ).flatMap((policy) => policy.PolicyDocument.Statement);
const actionsOf = (statement: Statement) => [statement.Action].flat();
const isLogs = (statement: Statement) => actionsOf(statement).every((action) => action.startsWith('logs:'));
/** X-Ray's write actions, which have no resource-level permissions. */
const isXray = (statement: Statement) =>
  actionsOf(statement).every((action) =>
    ['xray:PutTraceSegments', 'xray:PutTelemetryRecords'].includes(action),
  );

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const sourceTexts = new Map<string, string>();

/** The project sources bundled into a function, concatenated (node_modules left out). */
const bundledCode = async (fn: Resource) => {
  const zip = String((fn.Properties.Code as { S3Key?: string }).S3Key).replace(/^.*\//, '');
  const sources = (await sourcesOf(zip)).filter((source) => !source.includes('node_modules/'));
  return sources
    .map((source) => {
      const path = join(ROOT, source.replace(/^(\.\.\/)+/, ''));
      if (!sourceTexts.has(path)) sourceTexts.set(path, readFileSync(path, 'utf8'));
      return sourceTexts.get(path);
    })
    .join('\n');
};

/** The resources an environment value names: by physical name, by Ref/GetAtt, or by a name at the end of an ARN. */
const namedBy = (value: unknown): string[] => {
  const byName = new Map<string, string>();
  for (const [id, resource] of Object.entries(resources)) {
    for (const key of ['TableName', 'BucketName', 'QueueName', 'StateMachineName']) {
      const name = resource.Properties?.[key];
      if (typeof name === 'string') byName.set(name, id);
    }
  }
  if (typeof value === 'string') return [byName.get(value) ?? []].flat();
  const text = JSON.stringify(value);
  return [
    ...referencedIds(value),
    ...[...byName].filter(([name]) => text.includes(`:${name}"`)).map(([, id]) => id),
  ];
};

/**
 * What a function can reach: the resources named by the environment variables its bundled code reads, its event
 * sources and its asynchronous destinations. A grant beyond these is one the code cannot use.
 */
const reachableFrom = async (name: string, fn: Resource) => {
  const code = await bundledCode(fn);
  const env = (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
  const reachable = new Set(
    Object.entries(env)
      .filter(([variable]) => code.includes(variable))
      .flatMap(([, value]) => namedBy(value)),
  );
  for (const [, mapping] of ofType('AWS::Lambda::EventSourceMapping')) {
    if (targetOf(mapping.Properties.FunctionName) === name)
      reachable.add(targetOf(mapping.Properties.EventSourceArn) ?? '');
  }
  for (const [, config] of ofType('AWS::Lambda::EventInvokeConfig')) {
    if ((config.Properties.FunctionName as { Ref?: string }).Ref !== name) continue;
    for (const id of referencedIds(config.Properties.DestinationConfig)) reachable.add(id);
  }
  return reachable;
};

describe('a stack that survives deployment', () => {
  it('keeps the data: Retain on every data table and bucket, point-in-time recovery on every table, versioned buckets', () => {
    const tables = ofType('AWS::DynamoDB::Table');
    expect(tables.length).toBe(9);
    for (const [name, table] of tables) {
      expect(table.Properties.PointInTimeRecoverySpecification, name).toEqual({
        PointInTimeRecoveryEnabled: true,
      });
      // Only the ephemeral table (rate-limit windows and spent signatures, minutes of TTL'd state) goes with the stack.
      const policy = name === 'EphemeralTable' ? 'Delete' : 'Retain';
      expect([table.DeletionPolicy, table.UpdateReplacePolicy], name).toEqual([policy, policy]);
    }
    const buckets = ofType('AWS::S3::Bucket').filter(([name]) => name !== 'ServerlessDeploymentBucket');
    expect(buckets.map(([name]) => name).sort()).toEqual([
      'ConsoleBucket',
      'ImagesBucket',
      'SnapshotsBucket',
    ]);
    for (const [name, bucket] of buckets) {
      expect([bucket.DeletionPolicy, bucket.UpdateReplacePolicy], name).toEqual(['Retain', 'Retain']);
      expect(bucket.Properties.VersioningConfiguration, name).toEqual({ Status: 'Enabled' });
    }
  });

  it('watches the money and the play: a dashboard and alarms on metrics the code emits', () => {
    const alarms = Object.fromEntries(ofType('AWS::CloudWatch::Alarm'));
    for (const name of [
      'SettlementsOverdueAlarm',
      'PayoutFailuresAlarm',
      'PayoutsUnbookedAlarm',
      'SettlementsScheduleMissedAlarm',
      'SnapshotsScheduleMissedAlarm',
      'LaunchSweepScheduleMissedAlarm',
      'Api5xxRateAlarm',
    ])
      expect(alarms[name]?.Type, name).toBe('AWS::CloudWatch::Alarm');
    // A schedule that stops running is caught by missing data, not only by a low count.
    for (const name of [
      'SettlementsScheduleMissedAlarm',
      'SnapshotsScheduleMissedAlarm',
      'LaunchSweepScheduleMissedAlarm',
    ])
      expect(alarms[name]?.Properties.TreatMissingData, name).toBe('breaching');
    // The 5xx rate is the HTTP API's own.
    expect(JSON.stringify(alarms.Api5xxRateAlarm?.Properties.Metrics)).toContain('"Ref":"HttpApi"');

    const dashboard = ofType('AWS::CloudWatch::Dashboard');
    expect(dashboard).toHaveLength(1);
    const sub = (dashboard[0]?.[1].Properties.DashboardBody ?? {}) as { 'Fn::Sub'?: [string, unknown] };
    const template = sub['Fn::Sub']?.[0] ?? '';
    const body = JSON.parse(template) as { widgets: Array<{ properties: { metrics: unknown[][] } }> };
    expect(body.widgets.length).toBeGreaterThanOrEqual(6);

    // Every Arcadia metric an alarm or the dashboard reads is one some code under lib/ emits.
    const read = arcadiaMetricsRead(Object.values(alarms), body.widgets);
    const libSources = readdirSync(join(ROOT, 'lib'), { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.ts'))
      .map((file) => readFileSync(join(ROOT, 'lib', file), 'utf8'))
      .join('\n');
    const emitted = new Set(
      [...libSources.matchAll(/countMetric(?:By)?\(\s*'(\w+)'/g)].map((match) => match[1] ?? ''),
    );
    expect([...read].filter((name) => !emitted.has(name))).toEqual([]);
    expect(read.size).toBeGreaterThanOrEqual(13);
  });

  it('gives every queue a dead-letter queue, every asynchronous invocation an on-failure destination, and each an alarm', () => {
    const queues = ofType('AWS::SQS::Queue');
    const redriveTargets = queues.flatMap(([, queue]) => {
      const policy = queue.Properties.RedrivePolicy as { deadLetterTargetArn?: unknown } | undefined;
      return [targetOf(policy?.deadLetterTargetArn) ?? []].flat();
    });
    // Functions invoked asynchronously: the targets of EventBridge rules (the snapshot schedule).
    const asyncFunctions = ofType('AWS::Events::Rule').flatMap(([, rule]) =>
      (rule.Properties.Targets as Array<{ Arn: unknown }>).map((target) => targetOf(target.Arn) ?? ''),
    );
    expect(asyncFunctions).toContain('ScheduleSnapshotsLambdaFunction');
    const failureQueues = asyncFunctions.map((fn) => {
      const config = ofType('AWS::Lambda::EventInvokeConfig').find(
        ([, c]) => (c.Properties.FunctionName as { Ref?: string }).Ref === fn,
      )?.[1];
      const onFailure = (config?.Properties.DestinationConfig as { OnFailure?: { Destination?: unknown } })
        ?.OnFailure;
      const queue = targetOf(onFailure?.Destination);
      expect(queue, `${fn} needs an on-failure destination`).toBeDefined();
      // Lambda sends the failure record with the function's own role.
      const sends = statementsOf(roleOf(resources[fn] as Resource)).some(
        (s) => actionsOf(s).includes('sqs:SendMessage') && referencedIds(s.Resource).includes(queue ?? ''),
      );
      expect(sends, `${fn} may send to ${queue}`).toBe(true);
      return queue ?? '';
    });
    // Queues the code itself parks failed work in (a function's `*_DLQ_URL`): the settlement's payout DLQ.
    const parkingQueues = ofType('AWS::Lambda::Function').flatMap(([, fn]) =>
      Object.entries(
        (fn.Properties.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables ?? {},
      ).flatMap(([variable, value]) =>
        variable.endsWith('_DLQ_URL') ? [(value as { Ref?: string }).Ref ?? ''] : [],
      ),
    );
    expect([...new Set(parkingQueues)]).toEqual(['PayoutDlq']);
    const deadLetterQueues = new Set([...redriveTargets, ...failureQueues, ...parkingQueues]);
    for (const [name, queue] of queues) {
      if (deadLetterQueues.has(name)) {
        // A DLQ keeps messages longer than any source queue (SQS's default retention is 4 days).
        expect(Number(queue.Properties.MessageRetentionPeriod), name).toBe(1_209_600);
        continue;
      }
      expect(queue.Properties.RedrivePolicy, `${name} needs a DLQ`).toMatchObject({ maxReceiveCount: 5 });
    }
    const alarms = ofType('AWS::CloudWatch::Alarm').map(([, alarm]) => alarm.Properties);
    for (const dlq of deadLetterQueues) {
      const alarm = alarms.find(
        (a) =>
          JSON.stringify(a.Dimensions) ===
          JSON.stringify([{ Name: 'QueueName', Value: { 'Fn::GetAtt': [dlq, 'QueueName'] } }]),
      );
      expect(alarm, `${dlq} needs an alarm`).toMatchObject({
        Namespace: 'AWS/SQS',
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Threshold: 0,
        ComparisonOperator: 'GreaterThanThreshold',
      });
    }
  });

  it('gives each SQS consumer a visibility timeout of at least 6× its function timeout', () => {
    const mappings = ofType('AWS::Lambda::EventSourceMapping');
    expect(mappings.length).toBeGreaterThan(0);
    for (const [, mapping] of mappings) {
      const queue = targetOf(mapping.Properties.EventSourceArn) ?? '';
      const fn = targetOf(mapping.Properties.FunctionName) ?? '';
      const timeout = Number(resources[fn]?.Properties.Timeout);
      expect(timeout, fn).toBeGreaterThan(0);
      expect(
        Number(resources[queue]?.Properties.VisibilityTimeout),
        `${queue} → ${fn}`,
      ).toBeGreaterThanOrEqual(6 * timeout);
    }
  });

  it('serves game images through CloudFront with origin access control; the bucket lets only that distribution read games/*', () => {
    const config = resources.ImagesDistribution?.Properties.DistributionConfig as {
      Origins: Array<Record<string, unknown>>;
      DefaultCacheBehavior: Record<string, unknown>;
    };
    expect(config.Origins).toEqual([
      expect.objectContaining({
        DomainName: { 'Fn::GetAtt': ['ImagesBucket', 'RegionalDomainName'] },
        OriginAccessControlId: { 'Fn::GetAtt': ['ImagesOriginAccessControl', 'Id'] },
      }),
    ]);
    expect(config.DefaultCacheBehavior).toMatchObject({
      ViewerProtocolPolicy: 'redirect-to-https',
      AllowedMethods: ['GET', 'HEAD'],
    });
    expect(resources.ImagesOriginAccessControl?.Properties.OriginAccessControlConfig).toMatchObject({
      OriginAccessControlOriginType: 's3',
      SigningBehavior: 'always',
      SigningProtocol: 'sigv4',
    });
    expect(resources.ImagesBucket?.Properties.PublicAccessBlockConfiguration).toEqual({
      BlockPublicAcls: true,
      IgnorePublicAcls: true,
      BlockPublicPolicy: true,
      RestrictPublicBuckets: true,
    });
    const policies = ofType('AWS::S3::BucketPolicy').filter(
      ([, policy]) => (policy.Properties.Bucket as { Ref?: string }).Ref === 'ImagesBucket',
    );
    expect(policies).toHaveLength(1);
    const document = policies[0]?.[1].Properties.PolicyDocument as
      | { Statement: Array<Record<string, unknown>> }
      | undefined;
    const allows = (document?.Statement ?? []).filter((statement) => statement.Effect === 'Allow');
    expect(allows).toEqual([
      expect.objectContaining({
        Principal: { Service: 'cloudfront.amazonaws.com' },
        Action: 's3:GetObject',
        Resource: { 'Fn::Join': ['', [{ 'Fn::GetAtt': ['ImagesBucket', 'Arn'] }, '/games/*']] },
      }),
    ]);
    expect(referencedIds(allows[0]?.Condition)).toEqual(['ImagesDistribution']);
    // What the API answers as imageUrl starts with the distribution's domain.
    for (const [name, fn] of ofType('AWS::Lambda::Function')) {
      const env = (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
      expect(env.IMAGES_BASE_URL, name).toEqual({
        // biome-ignore lint/suspicious/noTemplateCurlyInString: a CloudFormation Fn::Sub template
        'Fn::Sub': ['https://${ImagesDistribution.DomainName}', {}],
      });
    }
  });

  it('expires unclaimed presigned uploads after a day; only the upload-url function writes uploads/, only registration and update read them', () => {
    const lifecycle = resources.ImagesBucket?.Properties.LifecycleConfiguration as
      | { Rules: Array<Record<string, unknown>> }
      | undefined;
    const rules = lifecycle?.Rules ?? [];
    expect(rules).toContainEqual(
      expect.objectContaining({ Status: 'Enabled', Prefix: 'uploads/', ExpirationInDays: 1 }),
    );
    const uploads = { 'Fn::Join': ['', [{ 'Fn::GetAtt': ['ImagesBucket', 'Arn'] }, '/uploads/*']] };
    const access = (action: string) =>
      ofType('AWS::Lambda::Function')
        .filter(([, fn]) =>
          statementsOf(roleOf(fn)).some(
            (s) => actionsOf(s).includes(action) && JSON.stringify(s.Resource) === JSON.stringify(uploads),
          ),
        )
        .map(([name]) => name)
        .sort();
    expect(access('s3:PutObject')).toEqual(['CreateGameImageUploadUrlLambdaFunction']);
    expect(access('s3:GetObject')).toEqual(['CreateGameLambdaFunction', 'UpdateGameLambdaFunction']);
    expect(access('s3:DeleteObject')).toEqual(['CreateGameLambdaFunction', 'UpdateGameLambdaFunction']);
  });

  it('lets browsers on other origins send HMAC requests: the HTTP API preflight allows their headers', () => {
    const [[, api] = ['', undefined]] = ofType('AWS::ApiGatewayV2::Api');
    const cors = api?.Properties.CorsConfiguration as
      | { AllowOrigins?: string[]; AllowHeaders?: string[]; ExposeHeaders?: string[] }
      | undefined;
    expect(cors?.AllowOrigins).toEqual(['*']);
    expect(cors?.AllowHeaders).toEqual(
      expect.arrayContaining(['content-type', 'authorization', 'x-auth-provider', 'x-content-sha256']),
    );
    expect(cors?.ExposeHeaders).toEqual(expect.arrayContaining(['x-request-id', 'retry-after']));
  });

  it('gives every function its own role (the four without statements used to share the framework’s)', () => {
    const roles = ofType('AWS::Lambda::Function').map(([name, fn]) => [name, roleOf(fn)] as const);
    for (const [name, role] of roles) {
      expect(role, name).toBe(name.replace(/LambdaFunction$/, 'IamRoleLambdaExecution'));
      expect(resources[role]?.Type, name).toBe('AWS::IAM::Role');
    }
    expect(new Set(roles.map(([, role]) => role)).size).toBe(roles.length);
    expect(roles.map(([, role]) => role)).not.toContain('IamRoleLambdaExecution');
    for (const fn of ['ApiReference', 'ApiReferenceJson', 'NotFound', 'CreateHmacSignature']) {
      expect(roleOf(resources[`${fn}LambdaFunction`] as Resource)).toBe(`${fn}IamRoleLambdaExecution`);
    }
  });

  it('grants no wildcard action, and no wildcard resource beyond the log and X-Ray statements', () => {
    for (const [role] of ofType('AWS::IAM::Role')) {
      for (const statement of statementsOf(role)) {
        for (const action of actionsOf(statement)) expect(action, role).not.toContain('*');
        if (!isLogs(statement) && !isXray(statement))
          expect([statement.Resource].flat(), `${role} ${actionsOf(statement)}`).not.toContain('*');
      }
    }
  });

  it('traces every function with X-Ray: active tracing, and exactly the two write actions in every role', () => {
    for (const [name, fn] of ofType('AWS::Lambda::Function')) {
      expect(fn.Properties.TracingConfig, name).toEqual({ Mode: 'Active' });
      const xray = statementsOf(roleOf(fn)).filter(isXray);
      expect(xray.flatMap(actionsOf).sort(), name).toEqual([
        'xray:PutTelemetryRecords',
        'xray:PutTraceSegments',
      ]);
    }
    // Nothing else of X-Ray anywhere.
    for (const [role] of ofType('AWS::IAM::Role'))
      for (const statement of statementsOf(role))
        if (actionsOf(statement).some((a) => a.startsWith('xray:'))) expect(isXray(statement)).toBe(true);
  });

  it('lets every HTTP function spend rate limits, and only HMAC-signed writes spend signatures, in the ephemeral table', () => {
    const ephemeralActions = (role: string) =>
      statementsOf(role)
        .filter((s) => referencedIds(s.Resource).includes('EphemeralTable'))
        .flatMap(actionsOf)
        .sort();
    const routes = new Map<string, string[]>(
      contracts.map((c) => [
        `${cfName(c.operationId)}LambdaFunction`,
        c.auth.includes('hmac') && c.method !== 'GET'
          ? ['dynamodb:PutItem', 'dynamodb:UpdateItem']
          : ['dynamodb:UpdateItem'],
      ]),
    );
    routes.set('NotFoundLambdaFunction', ['dynamodb:UpdateItem']);
    // Connect with Arcadia's authorization codes live there too: issued by the consent, spent by the token endpoint.
    const codes = ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'];
    routes.set('ApproveConnectLambdaFunction', codes);
    routes.set('OauthTokenLambdaFunction', codes);
    for (const [name, fn] of ofType('AWS::Lambda::Function')) {
      // Workers (state machine tasks, the schedule, the queue consumer) take no HTTP request.
      expect(ephemeralActions(roleOf(fn)), name).toEqual(routes.get(name) ?? []);
    }
  });

  it('grants each function only the tables, buckets, queues and state machine its bundled code can name', async () => {
    const excess: string[] = [];
    for (const [name, fn] of ofType('AWS::Lambda::Function')) {
      const reachable = await reachableFrom(name, fn);
      const granted = statementsOf(roleOf(fn))
        .filter((s) => !isLogs(s))
        .flatMap((s) => referencedIds(s.Resource));
      excess.push(...granted.filter((id) => !reachable.has(id)).map((id) => `${name}: ${id}`));
    }
    expect(excess).toEqual([]);
  });

  it('grants each function exactly what the modules in its bundle declare (infra/access.ts): every action on every resource they reach, and nothing more', async () => {
    // The names serverless resolved in the template, for the declarations written with serverless variables.
    const names: Record<string, string> = {
      launchStateMachine: String(resources.LaunchStateMachine?.Properties.StateMachineName),
      idpCredentialsSecret: String(
        environmentOf(resources.GetMeLambdaFunction as Resource).IDP_CREDENTIALS_SECRET_ID,
      ),
    };
    // …and `${env:NAME, ''}` as the package was made: from this process's environment, else empty.
    const resolve = (value: unknown) =>
      JSON.stringify(value)
        .replace(/\$\{self:custom\.names\.(\w+)\}/g, (_, key: string) => names[key] ?? key)
        .replace(/\$\{env:(\w+), ''\}/g, (_, key: string) => process.env[key] ?? '');
    const pairs = (statements: Array<{ Action: string | string[]; Resource: unknown }>) =>
      new Set(
        statements.flatMap((s) => actionsOf(s as Statement).map((a) => `${a} on ${resolve(s.Resource)}`)),
      );
    const byFunction = new Map(contracts.map((c) => [`${cfName(c.operationId)}LambdaFunction`, c]));
    const missing: string[] = [];
    const excess: string[] = [];
    for (const [name, fn] of ofType('AWS::Lambda::Function')) {
      const accesses: ModuleAccess[] = [];
      for (const path of await projectSources(fn)) accesses.push(accessOf(path, readSource(path)).access);
      // Lambda sends an asynchronous invocation's failure record with the function's own role.
      for (const [, config] of ofType('AWS::Lambda::EventInvokeConfig'))
        if ((config.Properties.FunctionName as { Ref?: string }).Ref === name)
          accesses.push({ grants: [{ resource: 'AsyncFailureQueue', actions: ['sqs:SendMessage'] }] });
      const contract = byFunction.get(name);
      const expected = pairs(
        declaredStatements(accesses, {
          signedWrite: !!contract?.auth.includes('hmac') && contract.method !== 'GET',
        }),
      );
      // The framework grants a consumer its queue's receiving actions, for its event source mapping.
      const consumed = ofType('AWS::Lambda::EventSourceMapping')
        .filter(([, m]) => targetOf(m.Properties.FunctionName) === name)
        .map(([, m]) => targetOf(m.Properties.EventSourceArn) ?? '');
      const receives = (p: string) =>
        /^sqs:(?:ReceiveMessage|DeleteMessage|GetQueueAttributes) /.test(p) &&
        consumed.some((id) => p.includes(`"${id}"`));
      const granted = new Set(
        [...pairs(statementsOf(roleOf(fn)).filter((s) => !isLogs(s) && !isXray(s)))].filter(
          (p) => !receives(p),
        ),
      );
      missing.push(...[...expected].filter((p) => !granted.has(p)).map((p) => `${name} lacks ${p}`));
      excess.push(...[...granted].filter((p) => !expected.has(p)).map((p) => `${name} has ${p}`));
    }
    expect(missing).toEqual([]);
    expect(excess).toEqual([]);
  });
});

/** The project sources bundled into a function (node_modules left out), by path. */
const projectSources = async (fn: Resource) => {
  const zip = String((fn.Properties.Code as { S3Key?: string }).S3Key).replace(/^.*\//, '');
  return (await sourcesOf(zip))
    .filter((source) => !source.includes('node_modules/'))
    .map((source) => source.replace(/^(\.\.\/)+/, ''));
};

const readSource = (source: string) => {
  const path = join(ROOT, source);
  if (!sourceTexts.has(path)) sourceTexts.set(path, readFileSync(path, 'utf8'));
  return sourceTexts.get(path) ?? '';
};

/** The Arcadia metrics that alarms and dashboard widgets read (plain metrics and SEARCH expressions). */
const arcadiaMetricsRead = (
  alarms: Resource[],
  widgets: Array<{ properties: { metrics: unknown[][] } }>,
): Set<string> => {
  const read = new Set<string>();
  for (const alarm of alarms)
    if (alarm.Properties.Namespace === 'Arcadia') read.add(String(alarm.Properties.MetricName));
  for (const metric of widgets.flatMap((widget) => widget.properties.metrics)) {
    if (metric[0] === 'Arcadia') read.add(String(metric[1]));
    const search = /MetricName=\\?"(\w+)/.exec(JSON.stringify(metric));
    if (search?.[1]) read.add(search[1]);
  }
  return read;
};

/** The statement granting the identity provider's credentials: that one secret's ARN, any random suffix. */
const isIdpCredentials = (statement: { Resource?: unknown }) =>
  /:secret:arcadia-[a-z0-9-]+-idp-credentials-\?{6}"/.test(JSON.stringify(statement.Resource ?? null));

/** The statement granting the secrets key's secret, by its logical id. */
const isSecretsKey = (statement: { Resource?: unknown }) =>
  JSON.stringify(statement.Resource ?? null) === JSON.stringify({ Ref: 'SecretsKeySecret' });

const environmentOf = (fn: Resource) =>
  (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables;

describe('keys only where they are used', () => {
  /** The functions that create custodial keys (a pool's vault, a launch's keys) or sign with them. */
  const VAULT_SIGNERS = [
    'BuildClaimTransactions',
    'DepositTournamentFunds',
    'LaunchTaskBuy',
    'LaunchTaskMint',
    'LaunchTaskReserve',
    'PurchaseMultiplier',
    'SettleGameDays',
    'SubmitClaim',
  ].map((name) => `${name}LambdaFunction`);

  it('keeps the vault sealing key in a retained, generated Secrets Manager secret, reachable only by the functions that create or sign for vaults', async () => {
    const secret = resources.VaultKeySecret;
    expect(secret?.Type).toBe('AWS::SecretsManager::Secret');
    expect([secret?.DeletionPolicy, secret?.UpdateReplacePolicy]).toEqual(['Retain', 'Retain']);
    expect(secret?.Properties.GenerateSecretString).toMatchObject({ PasswordLength: 64 });
    expect(
      ofType('AWS::SecretsManager::Secret')
        .map(([name]) => name)
        .sort(),
    ).toEqual(['SecretsKeySecret', 'VaultKeySecret']);

    const functions = ofType('AWS::Lambda::Function');
    const granted: string[] = [];
    const named: string[] = [];
    const bundled: string[] = [];
    for (const [name, fn] of functions) {
      const statements = statementsOf(roleOf(fn)).filter(
        (s) =>
          referencedIds(s.Resource).includes('VaultKeySecret') ||
          (actionsOf(s).some((action) => action.startsWith('secretsmanager:')) &&
            !isIdpCredentials(s) &&
            !isSecretsKey(s)),
      );
      if (statements.length > 0) granted.push(name);
      // Read only, and only this secret's ARN.
      for (const statement of statements) {
        expect(actionsOf(statement), name).toEqual(['secretsmanager:GetSecretValue']);
        expect(statement.Resource, name).toEqual({ Ref: 'VaultKeySecret' });
      }
      if (referencedIds(environmentOf(fn)).includes('VaultKeySecret')) named.push(name);
      if ((await projectSources(fn)).includes('lib/adapters/vault-keys.ts')) bundled.push(name);
    }
    expect(granted.sort()).toEqual(VAULT_SIGNERS);
    expect(named.sort()).toEqual(VAULT_SIGNERS);
    // The set is the code's, not a list kept by hand: exactly these bundle the module that reads the secret.
    expect(bundled.sort()).toEqual(VAULT_SIGNERS);
    for (const name of VAULT_SIGNERS)
      expect(environmentOf(resources[name] as Resource).VAULT_KEY_SECRET_ID, name).toEqual({
        Ref: 'VaultKeySecret',
      });
  });

  it("lets only the functions that call the identity provider read its credentials, from the deployer's secret, by name", async () => {
    const granted: string[] = [];
    const bundled: string[] = [];
    for (const [name, fn] of ofType('AWS::Lambda::Function')) {
      const statements = statementsOf(roleOf(fn)).filter(isIdpCredentials);
      for (const statement of statements)
        expect(actionsOf(statement), name).toEqual(['secretsmanager:GetSecretValue']);
      if (statements.length > 0) granted.push(name);
      if ((await projectSources(fn)).includes('lib/adapters/privy-api.ts')) bundled.push(name);
      // The secret's name, not its value: no function carries the app secret or the key in its environment.
      const environment = JSON.stringify(environmentOf(fn));
      expect(environment, name).not.toMatch(/IDP_APP_SECRET|IDP_AUTHORIZATION_KEY/);
    }
    expect(granted.length).toBeGreaterThan(0);
    // The set is the code's: exactly the bundles that carry the provider's transport.
    expect(granted.sort()).toEqual(bundled.sort());
  });

  it('keeps the secrets key (API secrets, session tokens) out of every environment: a retained secret, put by the deployer, that only the functions bundling its reader may read', async () => {
    const secret = resources.SecretsKeySecret;
    expect(secret?.Type).toBe('AWS::SecretsManager::Secret');
    expect([secret?.DeletionPolicy, secret?.UpdateReplacePolicy]).toEqual(['Retain', 'Retain']);
    // Created empty: a SecretString would put the key in the template, a generated one would not open the secrets
    // an upgraded stage sealed under its old key.
    expect(secret?.Properties.SecretString).toBeUndefined();
    expect(secret?.Properties.GenerateSecretString).toBeUndefined();

    const functions = ofType('AWS::Lambda::Function');
    const granted: string[] = [];
    const named: string[] = [];
    const bundled: string[] = [];
    for (const [name, fn] of functions) {
      // The key itself in no function's environment, under its old name or any other.
      const environment = environmentOf(fn);
      expect(Object.keys(environment), name).not.toContain('SECRETS_ENCRYPTION_KEY');
      expect(JSON.stringify(environment), name).not.toMatch(/secretsEncryptionKey/);
      const statements = statementsOf(roleOf(fn)).filter(isSecretsKey);
      for (const statement of statements)
        expect(actionsOf(statement), name).toEqual(['secretsmanager:GetSecretValue']);
      if (statements.length > 0) granted.push(name);
      if (referencedIds(environment).includes('SecretsKeySecret')) named.push(name);
      if ((await projectSources(fn)).includes('lib/adapters/secrets.ts')) bundled.push(name);
    }
    // The set is the code's: exactly the bundles that carry the reader get the secret's id and may read it.
    expect(granted.sort()).toEqual(bundled.sort());
    expect(named.sort()).toEqual(bundled.sort());
    for (const name of bundled)
      expect(environmentOf(resources[name] as Resource).SECRETS_KEY_SECRET_ID, name).toEqual({
        Ref: 'SecretsKeySecret',
      });
    // Public reads, the launch tasks, the settlement and the snapshot workers go without it.
    for (const name of [
      'GetGame',
      'ListGames',
      'NotFound',
      'GetSnapshot',
      'LaunchTaskMint',
      'SettleGameDays',
    ])
      expect(granted, name).not.toContain(`${name}LambdaFunction`);
    // Session-token routes (play, player boards, tournaments) read it; the rest of the API does not.
    expect(granted.length).toBeGreaterThan(0);
    expect(granted.length).toBeLessThan(functions.length * 0.7);
  });
});
