// Domain boundaries (docs/architecture.md), checked in CI by `npm run lint:deps`.
// Floors, bottom up: lib/core, lib/adapters, lib/runtime and lib/http (the ground every function stands on), then
// the domains (the folders of lib/ other than those and api), then lib/api (the catalogue of every contract and the
// API reference built from it) on top.
const INFRA = 'core|http|adapters|runtime|api';
const DOMAIN = `lib/(?!(?:${INFRA})/)([^/]+)/`;

module.exports = {
  forbidden: [
    {
      name: 'domain-imports-http',
      comment:
        'Domains stand on lib/core, never on the HTTP layer: a function hands their contract and use case to it.',
      severity: 'error',
      from: { path: `^(${DOMAIN}|lib/(core|adapters|runtime)/)` },
      to: { path: '^lib/http/' },
    },
    {
      name: 'http-imports-domain',
      comment:
        'lib/http is the ground under the domains: it imports no domain but the rate limiter it wires into every route.',
      severity: 'error',
      from: { path: '^lib/http/' },
      to: { path: `^${DOMAIN}`, pathNot: '^lib/ratelimit/' },
    },
    {
      name: 'imports-api',
      comment:
        'lib/api (the catalogue and the API reference) is the top floor of lib: it imports the domains, nothing in lib imports it.',
      severity: 'error',
      from: { path: '^lib/(?!api/)' },
      to: { path: '^lib/api/' },
    },
    {
      name: 'core-imports-domain',
      comment: 'lib/core is the small shared kernel: it depends on no domain and no adapter.',
      severity: 'error',
      from: { path: '^lib/core/' },
      to: { path: '^lib/(?!core/)' },
    },
    {
      name: 'bypass-domain-index',
      comment:
        "Another domain is imported only through its index.ts (its public surface); a domain's rooms (lib/<domain>/<room>/) are its inside, reached through that index too.",
      severity: 'error',
      from: { path: '^lib/([^/]+)/' },
      to: { path: `^${DOMAIN}(?!index\\.ts$)`, pathNot: '^lib/$1/' },
    },
    {
      name: 'outside-bypasses-domain-index',
      comment: 'Functions, scripts and benchmarks import a domain only through its index.ts.',
      severity: 'error',
      from: { path: '^(functions|scripts|bench|infra)/' },
      to: { path: `^${DOMAIN}(?!index\\.ts$)` },
    },
    {
      name: 'no-circular',
      comment: 'No import cycles anywhere (type-only imports included), between domains or inside one.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '(^|/)node_modules/|\\.generated\\.ts$' },
  },
};
