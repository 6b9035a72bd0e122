// Runs in every test worker before the test file is imported: handlers invoked in-process then reach the
// same local stack as serverless offline.
import { inject } from 'vitest';

// The handlers' own configuration first (USERS_TABLE, ...), then the stack's endpoints and credentials.
Object.assign(process.env, inject('functionEnv'), inject('stackEnv'));

// Handler logs are noise in test output; TEST_LOG_LEVEL=INFO brings them back.
process.env.POWERTOOLS_LOG_LEVEL = process.env.TEST_LOG_LEVEL ?? 'SILENT';

// Handlers invoked in-process would print their metrics (EMF) among the test output: off, except in the tests
// that read them (tests/helpers/enable-metrics.ts, imported first).
process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';

// Tests call the code in-process (a developer's API key sealed, a session token signed) as a function that is
// given the secrets key would: read from the stack's Secrets Manager, as the wrappers do before a handler runs.
const { loadSecretsKey } = await import('../lib/adapters/secrets.js');
await loadSecretsKey();
