import { describe, expect, it } from 'vitest';
import { canonicalString, formatAuthorization, sha256Hex, signRequest } from '../../lib/core/hmac-signing.js';

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

  it('formats the header value the way SPEC §4.2 shows it', () => {
    expect(formatAuthorization('k', 's', 1)).toBe('HMAC-SHA256 apiKey=k signature=s timestamp=1');
  });
});
