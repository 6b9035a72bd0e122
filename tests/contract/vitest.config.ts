// The identity-provider contract suite (`npm run test:contract-idp`): the production adapter against a real
// staging app of the provider, without the local stack. Skipped unless its credentials are in the environment.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    root: process.cwd(),
    environment: 'node',
    include: ['tests/contract/**/*.contract.ts'],
    testTimeout: 60_000,
    pool: 'forks',
  },
});
