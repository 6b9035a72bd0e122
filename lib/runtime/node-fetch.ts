// Build-time stand-in for `node-fetch` (esbuild `alias` in serverless.yml custom.esbuild).
//
// @solana/web3.js imports node-fetch only as a fallback for runtimes without `globalThis.fetch` (Node < 18);
// on Node 22 it calls the global fetch. Bundling node-fetch v2 drags in whatwg-url and tr46's Unicode tables
// (~290 KB, ~20 ms of module init) that never run. This forwards to the global fetch instead.
const fetch: typeof globalThis.fetch = (input, init) => globalThis.fetch(input, init);

export default fetch;
