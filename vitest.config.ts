// Three projects, one file at a time in all (the machine of record has 2 cores: two stack files at once raced on
// shared queues, and the package build beside the stack's files made the run longer and a chain test time out:
// docs/changelog.md). `unit`: pure tests (tests/unit), no services, seconds (`npm run test:unit`). `package`:
// `serverless package` and the stack it yields, no services. `stack`: everything else, against one local stack
// started by tests/global-setup.ts on free ports. `npm test` runs all three.
import { defineConfig } from 'vitest/config';

const PACKAGE_TEST = 'tests/contract/package.test.ts';

export default defineConfig({
  test: {
    environment: 'node',
    pool: 'forks',
    maxWorkers: 1,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['tests/unit/**/*.test.ts'],
          // Pure tests share one module graph per worker: loading zod, the AWS SDK and @solana/kit once per worker
          // instead of once per file is most of the project's time.
          pool: 'threads',
          isolate: false,
          setupFiles: ['tests/unit/setup-env.ts'],
          testTimeout: 30_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'package',
          include: [PACKAGE_TEST],
          testTimeout: 30_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'stack',
          include: ['tests/**/*.test.ts'],
          exclude: ['tests/unit/**', PACKAGE_TEST],
          globalSetup: ['tests/global-setup.ts'],
          setupFiles: ['tests/setup-env.ts'],
          testTimeout: 30_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
