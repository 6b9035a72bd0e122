// Domain boundaries (docs/architecture.md), checked in CI by `npm run lint:deps`.
// Domains are the folders of lib/ other than core, http, adapters and runtime.
const INFRA = 'core|http|adapters|runtime';
const DOMAIN = `lib/(?!(?:${INFRA})/)([^/]+)/`;

module.exports = {
  forbidden: [
    {
      name: 'domain-imports-http',
      comment: 'Domains import lib/core, never the HTTP layer: lib/http imports the domains.',
      severity: 'error',
      from: { path: `^(${DOMAIN}|lib/(core|adapters|runtime)/)` },
      to: { path: '^lib/http/' },
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
      comment: 'Another domain is imported only through its index.ts (its public surface).',
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
