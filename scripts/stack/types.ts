// Shared types of the local stack: ports, environment, logger and the service contract.
import type { ServerlessConfig } from './config.js';
import type { StackLogger } from './log.js';

export type { StackLogger } from './log.js';

import type { ProvisionedResources } from './resources.js';

/** Every port the stack listens on. Add a field here when a new service needs one. */
export interface StackPorts {
  /** serverless-offline HTTP API. */
  api: number;
  /** serverless-offline Lambda invoke API. */
  lambda: number;
  /** serverless-offline WebSocket server (only opened when a function has websocket events). */
  websocket: number;
  /** serverless-offline ALB server (only opened when a function has alb events). */
  alb: number;
  dynamodb: number;
  /** fauxqs: S3 and SQS on one port. */
  fauxqs: number;
  /** Step Functions stand-in. */
  sfn: number;
  /** Secrets Manager stand-in. */
  secretsManager: number;
  /** Local identity provider (JWKS + token issuer). */
  idp: number;
  /** Local Solana JSON-RPC over litesvm. */
  solana: number;
  /** The demo game's web server (/demo). */
  demo: number;
  /** The studio console's web server (/console). */
  console: number;
  /** The SOL/USD price stand-in (the public price feeds' endpoints). */
  price: number;
}

/** Environment variables the stack hands to handlers, tests and tools (`AWS_REGION`, endpoint URLs, ...). */
export type StackEnv = Record<string, string>;

/** Where child processes (DynamoDB Local, serverless offline) write their output. */
export type ChildOutput = 'console' | 'file';

/** Everything a service may read while starting; `env` and `urls` grow as services start. */
export interface StackContext {
  /** The project root (where serverless.yml lives). */
  readonly cwd: string;
  readonly ports: StackPorts;
  readonly region: string;
  readonly accountId: string;
  /** Root of this stack's files (logs always; data only when `persist`). */
  readonly dataDir: string;
  /** Keep DynamoDB, S3/SQS and Step Functions state under `dataDir` across restarts. */
  readonly persist: boolean;
  readonly childOutput: ChildOutput;
  readonly log: StackLogger;
  /** The framework's resolved configuration (`serverless print`), loaded in parallel with the first services. */
  readonly config: Promise<ServerlessConfig>;
  /**
   * The whole stack's environment, known from the ports before any service starts; IMAGES_BASE_URL, which needs
   * the images bucket's name, is added once the configuration is loaded (services.ts).
   */
  readonly env: StackEnv;
  /** Human-facing URLs collected from the services started so far. */
  readonly urls: Record<string, string>;
  /** Set by the resources service; read by the Step Functions stand-in. */
  provisioned?: ProvisionedResources;
  /**
   * Where the resources service writes the environment values that are CloudFormation expressions, resolved
   * (./function-environment.ts), for serverless offline and `npm run invoke`.
   */
  readonly resolvedEnvironmentFile: string;
}

/** A started service: its URLs and how to stop it. */
export interface RunningService {
  urls?: Record<string, string>;
  /** For child processes: settles when the process ends (whether or not `stop` was called). */
  exited?: Promise<unknown>;
  stop(): Promise<void>;
}

/** One piece of the local stack. A service starts as soon as the services named in `after` are running. */
export interface StackService {
  readonly name: string;
  /** Services that must be running first (e.g. resources need DynamoDB Local and fauxqs). */
  readonly after?: readonly string[];
  /** The variables this service contributes, from the ports alone, so every service can see all of them. */
  env?(ports: StackPorts): StackEnv;
  start(ctx: StackContext): Promise<RunningService>;
}
