// RFC 8785 canonical JSON: what the identity provider's request signatures and the payout statements hash. Written
// here rather than taken from the `canonicalize` package because that package is CommonJS without an ES default
// export TypeScript's NodeNext resolution accepts, and the function is twelve lines; the tests check it against the
// package's output (tests/unit/canonical-json.test.ts).

/**
 * Object keys sorted by UTF-16 code units, no whitespace, numbers and strings as ECMAScript serializes them,
 * `undefined` members left out (as the `canonicalize` package writes it).
 */
export const canonicalJson = (value: unknown): string | undefined => {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if ('toJSON' in value && typeof value.toJSON === 'function') return canonicalJson(value.toJSON());
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v) ?? 'null').join(',')}]`;
  const members = Object.keys(value)
    .sort()
    .flatMap((key) => {
      const text = canonicalJson((value as Record<string, unknown>)[key]);
      return text === undefined ? [] : [`${JSON.stringify(key)}:${text}`];
    });
  return `{${members.join(',')}}`;
};
