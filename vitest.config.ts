// Two projects. `unit`: pure tests (tests/unit), no services, seconds (`npm run test:unit`). `stack`: everything
// else, against one local stack started by tests/global-setup.ts on free ports. `npm test` runs both.
import { defineConfig } from 'vitest/config';

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
        },
      },
      {
        extends: true,
        test: {
          name: 'stack',
          include: ['tests/**/*.test.ts'],
          exclude: ['tests/unit/**'],
          globalSetup: ['tests/global-setup.ts'],
          setupFiles: ['tests/setup-env.ts'],
          testTimeout: 30_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
