// Build-time stand-in for `@aws-sdk/credential-provider-node` (esbuild `alias` in serverless.yml
// custom.esbuild): every AWS client of a bundled function resolves its credentials from the environment only.
//
// Lambda hands a function its execution role's credentials in AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and
// AWS_SESSION_TOKEN, and `npm run dev` / the tests' local stack set the same variables. The SDK's default
// chain would look there first too, but bundling it brings the SSO, INI-profile, process, IMDS, container,
// web-identity and login providers and the STS/SSO clients they call: 132 KB of every bundle (get-game
// 431 → 299 KB) and ~13–16 ms of CPU at each cold start (bench/cold-start.ts). None of them can apply on
// Lambda, and leaving them out also means a function can never pick up credentials from an unexpected source.
//
// Only the bundles use this module (tests and scripts run the sources, which keep the SDK's default chain).
// A function moved off standard Lambda (e.g. to a container with task-role credentials) must drop the alias.
import { type FromEnvInit, fromEnv } from '@aws-sdk/credential-provider-env';

/** Same name and call shape as the SDK's `defaultProvider`, which the clients' runtime config calls. */
export const defaultProvider = (init: FromEnvInit = {}) => fromEnv(init);
