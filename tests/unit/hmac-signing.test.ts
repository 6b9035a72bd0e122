import { describe, expect, it } from 'vitest';
import {
  canonicalQuery,
  canonicalString,
  formatAuthorization,
  sha256Hex,
  signedPath,
  signRequest,
} from '../../lib/core/hmac-signing.js';
import {
  canonicalQuery as sdkCanonicalQuery,
  canonicalString as sdkCanonicalString,
  signedPath as sdkSignedPath,
  signRequest as sdkSignRequest,
} from '../../sdk/src/hmac.js';

// Vectors computed independently with: printf 'post\n/games/me\n1700000000000' | openssl dgst -sha256 -hmac sk_test_secret
const SECRET = 'sk_test_secret';

describe('hmac signing', () => {
  it('signs lower(method) LF lower(path) LF timestamp as lowercase hex', () => {
    expect(
      signRequest({ secretKey: SECRET, method: 'POST', path: '/Games/ME', timestamp: 1700000000000 }),
    ).toBe('545158ce6d311bd60cb58fc27689baa45c554853d442f9b940205297352ea813');
  });

  it('appends the body hash line when the body is bound', () => {
    const bodySha256 = sha256Hex('');
    expect(bodySha256).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(canonicalString({ method: 'GET', path: '/user/me', timestamp: 1700000000000, bodySha256 })).toBe(
      `get\n/user/me\n1700000000000\n${bodySha256}`,
    );
    expect(
      signRequest({
        secretKey: SECRET,
        method: 'get',
        path: '/user/me',
        timestamp: 1700000000000,
        bodySha256,
      }),
    ).toBe('98e7b9e5de09a6da60c88a91f04ee8039fe36e80328085fc3ce0d82680648146');
  });

  // The documented test vector (POST /user/hmac-signature, README). Signature computed independently with:
  // printf 'get\n/games/me\n1700000000000\ne3b0…b855\nlimit=10&q=a&q=caf%%C3%%A9%%20bar&sort=desc' |
  //   openssl dgst -sha256 -hmac sk_test_secret
  const STRICT = {
    method: 'GET',
    path: '/games/me',
    timestamp: 1700000000000,
    bodySha256: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    query: '?sort=desc&limit=10&q=caf%c3%a9+bar&q=a',
  };

  it('canonicalizes a query: form-decoded, RFC 3986-encoded with uppercase hex, sorted by name then value', () => {
    expect(canonicalQuery(STRICT.query)).toBe('limit=10&q=a&q=caf%C3%A9%20bar&sort=desc');
    // The same pairs in another order and encoding: the same canonical form.
    expect(canonicalQuery('q=caf%C3%A9%20bar&q=a&limit=10&&sort=desc')).toBe(
      'limit=10&q=a&q=caf%C3%A9%20bar&sort=desc',
    );
    expect(canonicalQuery('')).toBe('');
    expect(canonicalQuery('?')).toBe('');
    expect(canonicalQuery('flag&b=&a=1')).toBe('a=1&b=&flag=');
    // Reserved and sub-delimiter characters are always escaped; unreserved ones never are.
    expect(canonicalQuery("k=!*'()%2B%26%3D/~-._")).toBe('k=%21%2A%27%28%29%2B%26%3D%2F~-._');
    // Sorted by encoded bytes: uppercase before lowercase, '%' before letters; a value change is another form.
    expect(canonicalQuery('b=1&B=2&a=%7E&a=~')).toBe('B=2&a=~&a=~&b=1');
    expect(canonicalQuery('limit=10')).not.toBe(canonicalQuery('limit=100'));
  });

  it('signs the strict form: method, path, timestamp, body hash and canonical query', () => {
    expect(canonicalString(STRICT)).toBe(
      `get\n/games/me\n1700000000000\n${STRICT.bodySha256}\nlimit=10&q=a&q=caf%C3%A9%20bar&sort=desc`,
    );
    expect(signRequest({ ...STRICT, secretKey: SECRET })).toBe(
      '4e8aa4998a1fde57d1931dc88cef43c7d21a96dbd416e61776c1b963386bf9d0',
    );
    // No query: an empty last line, which no body-bound signature has.
    expect(signRequest({ ...STRICT, query: '', secretKey: SECRET })).toBe(
      '9181e9e2cb6e1fac5957e3f2cec98620bad4b842b20d96fa9954fafdb914fee7',
    );
    const { query: _query, ...bodyBound } = STRICT;
    expect(signRequest({ ...bodyBound, secretKey: SECRET })).not.toBe(
      signRequest({ ...STRICT, query: '', secretKey: SECRET }),
    );
    expect(() => canonicalString({ ...STRICT, bodySha256: undefined as unknown as string })).toThrow(
      /body hash/,
    );
  });

  it('the SDK signs the same strings as the server (WebCrypto)', async () => {
    for (const query of [STRICT.query, '', 'b=1&B=2&a=%7E&a=~', "k=!*'()%2B%26%3D/~-._"])
      expect(sdkCanonicalQuery(query)).toBe(canonicalQuery(query));
    expect(sdkCanonicalString(STRICT)).toBe(canonicalString(STRICT));
    const headers = await sdkSignRequest({ ...STRICT, apiKey: 'k', secretKey: SECRET });
    expect(headers.authorization).toBe(
      'HMAC-SHA256 apiKey=k signature=4e8aa4998a1fde57d1931dc88cef43c7d21a96dbd416e61776c1b963386bf9d0 timestamp=1700000000000',
    );
    expect(headers['x-content-sha256']).toBe(STRICT.bodySha256);
  });

  it('signs the path decoded, in the SDK as on the server: one string whatever the client encoded', () => {
    const period = '/tournaments/g/t/periods/2026-12-02T00:44:00Z/board';
    const cases: Array<[string, string]> = [
      ['/tournaments/g/t/periods/2026-12-02T00%3A44%3A00Z/board', period],
      ['/tournaments/g/t/periods/2026-12-02T00%3a44%3a00Z/board', period],
      [period, period],
      ['/games/me', '/games/me'],
      ['/x/caf%C3%A9%20bar', '/x/café bar'],
      ['/x/a%2Fb', '/x/a/b'],
      // A literal % and runs that are no UTF-8 stay as sent.
      ['/x/100%', '/x/100%'],
      ['/x/%E2%82/%zz', '/x/%E2%82/%zz'],
    ];
    for (const [sent, signed] of cases) {
      expect(signedPath(sent)).toBe(signed);
      expect(sdkSignedPath(sent)).toBe(signed);
    }
  });

  it('formats the header value the way SPEC §4.2 shows it', () => {
    expect(formatAuthorization('k', 's', 1)).toBe('HMAC-SHA256 apiKey=k signature=s timestamp=1');
  });
});
