// Three projects, run one after the other (`sequence.groupOrder`). `unit`: pure tests (tests/unit), no services,
// seconds (`npm run test:unit`). `package`: `serverless package` of the whole stack, alone (its bundler takes
// ~12 GB). `stack`: everything else, against one local stack started by tests/global-setup.ts on free ports, two
// files at a time. `npm test` runs all three.
import { defineConfig } from 'vitest/config';

const PACKAGE_TEST = 'tests/contract/package.test.ts';

export default defineConfig({
  test: {
    environment: 'node',
    pool: 'forks',
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
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'package',
          include: [PACKAGE_TEST],
          // Packaged as for AWS, with no local stack: nothing else runs beside its bundler. Its bundles load with a
          // complete set of settings pointing nowhere real, as the pure tests' modules do.
          setupFiles: ['tests/unit/setup-env.ts'],
          maxWorkers: 1,
          testTimeout: 30_000,
          hookTimeout: 900_000,
          sequence: { groupOrder: 1 },
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
          // Two files at a time even on 2 cores (vitest's default there is one): a stack test mostly waits on the
          // stack (the chain's slots, DynamoDB Local, serverless offline), so a second file fills the wait.
          maxWorkers: 2,
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
