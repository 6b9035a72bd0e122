// A local stand-in for AWS Secrets Manager: the JSON 1.1 protocol the SDK speaks (POST / with
// `X-Amz-Target: secretsmanager.<Operation>`, `application/x-amz-json-1.1`, a SigV4 Authorization header for the
// `secretsmanager` signing name), the operations the project and its provisioning use, and AWS's error shapes
// (`__type` + `Message`, HTTP 400, `x-amzn-ErrorType`). No maintained npm package provides one (docs/decisions.md,
// "A local Secrets Manager"). The signature itself is not verified: locally every caller holds the same
// credentials, and what the stand-in must reproduce is the contract the code depends on.
import { randomBytes, randomInt, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { dirname } from 'node:path';

export interface SecretsManagerOptions {
  port: number;
  region: string;
  accountId: string;
  /** JSON file the secrets are kept in across restarts; in memory when absent. */
  persistFile?: string;
}

export interface LocalSecretsManager {
  endpoint: string;
  stop(): Promise<void>;
}

interface StoredSecret {
  arn: string;
  name: string;
  description?: string;
  versionId: string;
  secretString?: string;
  secretBinary?: string;
  createdDate: number;
  lastChangedDate: number;
}

class ServiceError extends Error {
  constructor(
    readonly type: string,
    message: string,
    readonly status = 400,
  ) {
    super(message);
  }
}

const notFound = () =>
  new ServiceError('ResourceNotFoundException', "Secrets Manager can't find the specified secret.");
const invalid = (message: string) => new ServiceError('InvalidParameterException', message);

const PUNCTUATION = '!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~';
const ALPHABETS = {
  lowercase: 'abcdefghijklmnopqrstuvwxyz',
  uppercase: 'ABCDEFGHIJKLMNOPQRSTUVWXYZ',
  numbers: '0123456789',
  punctuation: PUNCTUATION,
};

/** GetRandomPassword's parameters (also CloudFormation's GenerateSecretString, which has the same names). */
export interface PasswordOptions {
  PasswordLength?: number;
  ExcludeCharacters?: string;
  ExcludeNumbers?: boolean;
  ExcludePunctuation?: boolean;
  ExcludeUppercase?: boolean;
  ExcludeLowercase?: boolean;
  IncludeSpace?: boolean;
  RequireEachIncludedType?: boolean;
}

/** A random password as Secrets Manager generates it (default 32 characters, every included type once). */
export function randomPassword(options: PasswordOptions = {}): string {
  const length = options.PasswordLength ?? 32;
  if (!Number.isInteger(length) || length < 1 || length > 4096)
    throw invalid('PasswordLength must be between 1 and 4096');
  const excluded = new Set(options.ExcludeCharacters ?? '');
  const keep = (chars: string) => [...chars].filter((c) => !excluded.has(c)).join('');
  const types = [
    options.ExcludeLowercase ? '' : keep(ALPHABETS.lowercase),
    options.ExcludeUppercase ? '' : keep(ALPHABETS.uppercase),
    options.ExcludeNumbers ? '' : keep(ALPHABETS.numbers),
    options.ExcludePunctuation ? '' : keep(ALPHABETS.punctuation),
    options.IncludeSpace ? ' ' : '',
  ].filter((chars) => chars.length > 0);
  const all = types.join('');
  if (all.length === 0) throw invalid('The password would have no characters to choose from');
  const pick = (chars: string) => chars[randomInt(chars.length)] ?? '';
  const required = options.RequireEachIncludedType === false ? [] : types.map(pick);
  if (required.length > length) throw invalid('PasswordLength is too short to include each type');
  const chars = [...required, ...Array.from({ length: length - required.length }, () => pick(all))];
  for (let i = chars.length - 1; i > 0; i--) {
    const j = randomInt(i + 1);
    [chars[i], chars[j]] = [chars[j] ?? '', chars[i] ?? ''];
  }
  return chars.join('');
}

/** Secrets by name, with the store's persistence. */
class SecretStore {
  private readonly secrets = new Map<string, StoredSecret>();

  constructor(
    private readonly arnPrefix: string,
    private readonly file?: string,
  ) {
    if (file && existsSync(file))
      for (const secret of JSON.parse(readFileSync(file, 'utf8')) as StoredSecret[])
        this.secrets.set(secret.name, secret);
  }

  /** By name or by full ARN, as SecretId accepts either. */
  find(id: unknown): StoredSecret {
    if (typeof id !== 'string' || id.length === 0) throw invalid('SecretId is required');
    const secret =
      this.secrets.get(id) ?? [...this.secrets.values()].find((candidate) => candidate.arn === id);
    if (!secret) throw notFound();
    return secret;
  }

  create(name: string, fields: Pick<StoredSecret, 'description' | 'secretString' | 'secretBinary'>) {
    if (this.secrets.has(name))
      throw new ServiceError(
        'ResourceExistsException',
        `The operation failed because the secret ${name} already exists.`,
      );
    const now = Date.now() / 1000;
    // AWS appends six random characters to the name in the ARN.
    const suffix = randomBytes(6).toString('base64url').replace(/[-_]/g, 'x').slice(0, 6);
    const secret: StoredSecret = {
      arn: `${this.arnPrefix}${name}-${suffix}`,
      name,
      versionId: randomUUID(),
      createdDate: now,
      lastChangedDate: now,
      ...fields,
    };
    this.secrets.set(name, secret);
    this.save();
    return secret;
  }

  putValue(secret: StoredSecret, fields: Pick<StoredSecret, 'secretString' | 'secretBinary'>) {
    Object.assign(secret, { secretString: undefined, secretBinary: undefined }, fields, {
      versionId: randomUUID(),
      lastChangedDate: Date.now() / 1000,
    });
    this.save();
    return secret;
  }

  private save() {
    if (!this.file) return;
    mkdirSync(dirname(this.file), { recursive: true });
    writeFileSync(`${this.file}.tmp`, JSON.stringify([...this.secrets.values()], null, 2));
    renameSync(`${this.file}.tmp`, this.file);
  }
}

type Body = Record<string, unknown>;

const secretValue = (body: Body) => {
  const secretString = typeof body.SecretString === 'string' ? body.SecretString : undefined;
  const secretBinary = typeof body.SecretBinary === 'string' ? body.SecretBinary : undefined;
  if (secretString !== undefined && secretBinary !== undefined)
    throw invalid('You can set SecretString or SecretBinary, not both');
  return { secretString, secretBinary };
};

const operations = (store: SecretStore): Record<string, (body: Body) => Body> => ({
  CreateSecret(body) {
    if (typeof body.Name !== 'string' || !/^[A-Za-z0-9/_+=.@-]{1,512}$/.test(body.Name))
      throw invalid('Name is required: 1 to 512 of the characters A-Z a-z 0-9 /_+=.@-');
    const secret = store.create(body.Name, {
      ...(typeof body.Description === 'string' ? { description: body.Description } : {}),
      ...secretValue(body),
    });
    return { ARN: secret.arn, Name: secret.name, VersionId: secret.versionId };
  },
  GetSecretValue(body) {
    const secret = store.find(body.SecretId);
    if (body.VersionId !== undefined && body.VersionId !== secret.versionId) throw notFound();
    if (body.VersionStage !== undefined && body.VersionStage !== 'AWSCURRENT') throw notFound();
    if (secret.secretString === undefined && secret.secretBinary === undefined)
      throw new ServiceError(
        'ResourceNotFoundException',
        "Secrets Manager can't find the specified secret value for staging label: AWSCURRENT",
      );
    return {
      ARN: secret.arn,
      Name: secret.name,
      VersionId: secret.versionId,
      ...(secret.secretString !== undefined ? { SecretString: secret.secretString } : {}),
      ...(secret.secretBinary !== undefined ? { SecretBinary: secret.secretBinary } : {}),
      VersionStages: ['AWSCURRENT'],
      CreatedDate: secret.lastChangedDate,
    };
  },
  PutSecretValue(body) {
    const secret = store.putValue(store.find(body.SecretId), secretValue(body));
    return { ARN: secret.arn, Name: secret.name, VersionId: secret.versionId, VersionStages: ['AWSCURRENT'] };
  },
  DescribeSecret(body) {
    const secret = store.find(body.SecretId);
    return {
      ARN: secret.arn,
      Name: secret.name,
      ...(secret.description !== undefined ? { Description: secret.description } : {}),
      CreatedDate: secret.createdDate,
      LastChangedDate: secret.lastChangedDate,
      VersionIdsToStages: { [secret.versionId]: ['AWSCURRENT'] },
    };
  },
  GetRandomPassword(body) {
    return { RandomPassword: randomPassword(body as PasswordOptions) };
  },
});

const readBody = (req: IncomingMessage): Promise<string> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });

const send = (res: ServerResponse, status: number, body: Body, errorType?: string) => {
  res.writeHead(status, {
    'content-type': 'application/x-amz-json-1.1',
    'x-amzn-requestid': randomUUID(),
    ...(errorType ? { 'x-amzn-errortype': errorType } : {}),
  });
  res.end(JSON.stringify(body));
};

/** The operation a request names, once it is a signed JSON 1.1 request to this service. */
const operationOf = (req: IncomingMessage): string => {
  const authorization = req.headers.authorization ?? '';
  if (!authorization.startsWith('AWS4-HMAC-SHA256 '))
    throw new ServiceError('MissingAuthenticationTokenException', 'Missing Authentication Token', 403);
  if (!/Credential=[^/]+\/\d{8}\/[a-z0-9-]+\/secretsmanager\/aws4_request/.test(authorization))
    throw new ServiceError(
      'InvalidSignatureException',
      'Credential should be scoped to correct service: secretsmanager.',
      403,
    );
  const target = String(req.headers['x-amz-target'] ?? '');
  if (req.method !== 'POST' || !target.startsWith('secretsmanager.'))
    throw new ServiceError('UnknownOperationException', `Unknown operation ${target}`);
  if (!String(req.headers['content-type'] ?? '').startsWith('application/x-amz-json-1.1'))
    throw new ServiceError('SerializationException', 'Content-Type must be application/x-amz-json-1.1');
  return target.slice('secretsmanager.'.length);
};

/** Starts the stand-in on 127.0.0.1:`port`. */
export async function startLocalSecretsManager(options: SecretsManagerOptions): Promise<LocalSecretsManager> {
  const store = new SecretStore(
    `arn:aws:secretsmanager:${options.region}:${options.accountId}:secret:`,
    options.persistFile,
  );
  const handlers = operations(store);
  const server = createServer(async (req, res) => {
    try {
      const operation = operationOf(req);
      const handler = handlers[operation];
      if (!handler) throw new ServiceError('UnknownOperationException', `Unknown operation ${operation}`);
      const text = await readBody(req);
      let body: Body;
      try {
        body = text ? (JSON.parse(text) as Body) : {};
      } catch {
        throw new ServiceError('SerializationException', 'The request body is not JSON');
      }
      send(res, 200, handler(body));
    } catch (error) {
      if (error instanceof ServiceError)
        send(res, error.status, { __type: error.type, Message: error.message }, error.type);
      else send(res, 500, { __type: 'InternalServiceError', Message: String(error) }, 'InternalServiceError');
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, '127.0.0.1', () => resolve());
  });
  const bound = server.address();
  // Port 0 asks for any free port: report the one given.
  const port = typeof bound === 'object' && bound ? bound.port : options.port;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
