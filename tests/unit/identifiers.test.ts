import { describe, expect, it } from 'vitest';
import { AppError } from '../../lib/core/errors.js';
import { base58Decode, parseIdentifier, parseIdentifiers } from '../../lib/user/identifiers.js';

// An independent base58 encoder, to build keys of chosen byte lengths.
const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const base58Encode = (bytes: Uint8Array): string => {
  let n = BigInt(`0x${Buffer.from(bytes).toString('hex') || '0'}`);
  let out = '';
  while (n > 0n) {
    out = ALPHABET[Number(n % 58n)] + out;
    n /= 58n;
  }
  for (const b of bytes) {
    if (b !== 0) break;
    out = `1${out}`;
  }
  return out;
};
const bytesOf = (length: number, fill = 7) => new Uint8Array(length).fill(fill);

// Wrapped SOL mint and the SPL Token program: real 32-byte Solana addresses.
const WSOL = 'So11111111111111111111111111111111111111112';
const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
// EIP-55 test vector (mixed-case checksum form).
const ETH_MIXED = '0x52908400098527886E0F7030069857D2E4169EE7';

const rejection = (raw: string): AppError => {
  try {
    parseIdentifier(raw);
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return error as AppError;
  }
  throw new Error(`expected ${JSON.stringify(raw)} to be rejected`);
};

describe('base58Decode', () => {
  it('decodes a known Solana address to its bytes', () => {
    expect(Buffer.from(base58Decode(WSOL) ?? []).toString('hex')).toBe(
      '069b8857feab8184fb687f634618c035dac439dc1aeb3b5598a0f00000000001',
    );
  });

  it('maps leading 1s to zero bytes and round-trips', () => {
    expect(base58Decode('1'.repeat(32))).toEqual(new Uint8Array(32));
    const bytes = Uint8Array.from([0, 0, 1, 2, 250, 255]);
    expect(base58Decode(base58Encode(bytes))).toEqual(bytes);
  });

  it('rejects characters outside the Bitcoin alphabet', () => {
    for (const c of ['0', 'O', 'I', 'l', '+', '/']) expect(base58Decode(`abc${c}`)).toBeUndefined();
  });
});

describe('parseIdentifier: valid forms', () => {
  it.each([
    // raw UUIDs (Arc IDs): any RFC 4122 variant, lower-cased
    ['3F2504E0-4F89-41D3-9A0C-0305E82C3301', 'arc', '3f2504e0-4f89-41d3-9a0c-0305e82c3301'],
    ['01890a5d-ac96-774b-bcce-b302099a8057', 'arc', '01890a5d-ac96-774b-bcce-b302099a8057'],
    ['6ba7b810-9dad-11d1-80b4-00c04fd430c8', 'arc', '6ba7b810-9dad-11d1-80b4-00c04fd430c8'],
    // identity-provider ids
    ['did:local:alice', 'did', 'did:local:alice'],
    ['DID:privy:cm3x_9.a-b:c', 'did', 'did:privy:cm3x_9.a-b:c'],
    [`did:idp1:${'a'.repeat(128)}`, 'did', `did:idp1:${'a'.repeat(128)}`],
    // Solana, short and long prefixes, any prefix case; base58 is case-sensitive and kept as given
    [`sol:${WSOL}`, 'sol', WSOL],
    [`solana:${TOKEN_PROGRAM}`, 'sol', TOKEN_PROGRAM],
    [`SOLANA:${WSOL}`, 'sol', WSOL],
    [`sol:${'1'.repeat(32)}`, 'sol', '1'.repeat(32)],
    // Ethereum, normalised to lower case (mixed case accepted without checksum verification)
    [`eth:${ETH_MIXED}`, 'eth', ETH_MIXED.toLowerCase()],
    [`ethereum:${ETH_MIXED.toLowerCase()}`, 'eth', ETH_MIXED.toLowerCase()],
    [`Eth:0x${'A'.repeat(40)}`, 'eth', `0x${'a'.repeat(40)}`],
    // X handles, optional @, lower-cased
    ['x:Jack', 'x', 'jack'],
    ['x:@Elon_Musk', 'x', 'elon_musk'],
    ['twitter:abcdefghijklmno', 'x', 'abcdefghijklmno'],
    ['TWITTER:_1', 'x', '_1'],
    ['X:a', 'x', 'a'],
    // emails, lower-cased as a whole
    ['email:Alice.Smith@Example.COM', 'email', 'alice.smith@example.com'],
    ["email:o'brien+tag@mail.example.co.uk", 'email', "o'brien+tag@mail.example.co.uk"],
    ['EMAIL:a@b.io', 'email', 'a@b.io'],
    ['email:x@sub-domain.xn--p1ai', 'email', 'x@sub-domain.xn--p1ai'],
  ])('%s → %s %s', (raw, kind, value) => {
    const parsed = parseIdentifier(raw);
    expect(parsed).toEqual({ raw, kind, value, key: kind === 'did' ? value : `${kind}:${value}` });
  });

  it('gives equivalent spellings the same key', () => {
    const keys = [`sol:${WSOL}`, `solana:${WSOL}`, `SoL:${WSOL}`].map((r) => parseIdentifier(r).key);
    expect(new Set(keys)).toEqual(new Set([`sol:${WSOL}`]));
    expect(parseIdentifier('twitter:@Jack').key).toBe(parseIdentifier('x:jack').key);
    expect(parseIdentifier('email:A@B.CO').key).toBe('email:a@b.co');
    expect(parseIdentifier('3F2504E0-4F89-41D3-9A0C-0305E82C3301').key).toBe(
      'arc:3f2504e0-4f89-41d3-9a0c-0305e82c3301',
    );
    expect(parseIdentifier('did:local:bob').key).toBe('did:local:bob');
  });

  it('accepts an email of exactly 254 characters', () => {
    const address = `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(58)}.io`;
    expect(address).toHaveLength(254);
    expect(parseIdentifier(`email:${address}`).value).toBe(address);
  });
});

describe('parseIdentifier: malformed identifiers', () => {
  it.each([
    // empty values and unknown forms
    ['', 'empty'],
    ['sol:', 'empty sol'],
    ['email:', 'empty email'],
    ['did:', 'empty did'],
    ['alice', 'no prefix, not a UUID'],
    ['btc:1BoatSLRHtKNngkdXEeobR76b53LETtpyT', 'unknown prefix'],
    [':abc', 'empty prefix'],
    // uuid-like but invalid
    ['3f2504e0-4f89-01d3-9a0c-0305e82c3301', 'version 0'],
    ['3f2504e0-4f89-41d3-ca0c-0305e82c3301', 'non-RFC variant'],
    ['00000000-0000-0000-0000-000000000000', 'nil UUID'],
    ['3f2504e04f8941d39a0c0305e82c3301', 'no hyphens'],
    ['{3f2504e0-4f89-41d3-9a0c-0305e82c3301}', 'braces'],
    ['3f2504e0-4f89-41d3-9a0c-0305e82c330g', 'non-hex'],
    ['3f2504e0-4f89-41d3-9a0c-0305e82c33011', 'too long'],
    // did
    ['did:local', 'did without id'],
    ['did:Local:alice', 'upper-case idp'],
    ['did:local:al ice', 'space in id'],
    ['did:local:alice/x', 'unsafe char in id'],
    [`did:local:${'a'.repeat(129)}`, 'id too long'],
    ['did::alice', 'empty idp'],
    // Solana
    [`sol:${WSOL.slice(0, -1)}0`, 'base58 with 0'],
    [`sol:O${WSOL.slice(1)}`, 'base58 with O'],
    [`sol:${WSOL.slice(0, 5)}I${WSOL.slice(6)}`, 'base58 with I'],
    [`solana:${TOKEN_PROGRAM.slice(0, -1)}l`, 'base58 with l'],
    [`sol:${base58Encode(bytesOf(31))}`, '31-byte key'],
    [`sol:${base58Encode(bytesOf(33))}`, '33-byte key'],
    [`sol:${'1'.repeat(31)}`, '31 zero bytes'],
    [`sol:${'1'.repeat(33)}`, '33 zero bytes'],
    [`sol:0x${'a'.repeat(40)}`, 'eth address as sol'],
    // Ethereum
    [`eth:0x${'a'.repeat(39)}`, 'short eth'],
    [`eth:0x${'a'.repeat(41)}`, 'long eth'],
    [`eth:${'a'.repeat(40)}`, 'eth without 0x'],
    [`ethereum:0x${'g'.repeat(40)}`, 'non-hex eth'],
    [`eth:0x${'a'.repeat(38)}\uff15\uff15`, 'fullwidth digits in eth'],
    [`eth:${WSOL}`, 'sol address as eth'],
    // X handles
    ['x:abcdefghijklmnop', '16-char handle'],
    ['x:jack-dorsey', 'handle with -'],
    ['x:@', 'bare @'],
    ['x:@@jack', 'double @'],
    ['twitter:jack.d', 'handle with .'],
    ['x:\u0430lice', 'Cyrillic а in handle'],
    // email
    ['email:alice@example', 'email without TLD'],
    ['email:alice@example.c', 'one-letter TLD'],
    ['email:alice@example.123', 'numeric TLD'],
    ['email:alice..smith@example.com', 'double dot in local part'],
    ['email:.alice@example.com', 'leading dot'],
    ['email:alice.@example.com', 'trailing dot'],
    ['email:alice@example..com', 'double dot in domain'],
    ['email:alice smith@example.com', 'space'],
    ['email:alice@@example.com', 'two @'],
    ['email:alice@-example.com', 'label starting with -'],
    ['email:alice@exa_mple.com', 'underscore in domain'],
    ['email:"alice"@example.com', 'quoted local part'],
    ['email:alice@[127.0.0.1]', 'address literal'],
    ['email:@example.com', 'empty local part'],
    [`email:${'a'.repeat(65)}@example.com`, 'local part over 64'],
    [`email:${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(59)}.io`, 'over 254'],
    ['email:аlice@example.com', 'Cyrillic а in email'],
    // whitespace, control characters, non-ASCII
    [' x:jack', 'leading space'],
    ['x:jack ', 'trailing space'],
    ['x:jack\n', 'trailing newline'],
    ['x:ja\u0000ck', 'NUL'],
    ['x:jack\u200b', 'zero-width space'],
    ['ｘ:jack', 'fullwidth prefix'],
    [`did:local:${'a'.repeat(300)}`, 'over the length limit'],
  ])('%j (%s) is INVALID_IDENTIFIER naming the value', (raw) => {
    const error = rejection(raw);
    expect(error.code).toBe('INVALID_IDENTIFIER');
    expect(error.status).toBe(400);
    const shown = raw.length > 120 ? raw.slice(0, 120) : raw;
    expect(error.message).toContain(JSON.stringify(shown).slice(1, -1));
    expect(error.details).toHaveLength(1);
  });

  it('explains the problem', () => {
    expect(rejection(`sol:${base58Encode(bytesOf(31))}`).message).toMatch(/32 bytes, got 31/);
    expect(rejection('x:abcdefghijklmnop').message).toMatch(/1 to 15/);
    expect(rejection('btc:abc').message).toMatch(/unknown prefix "btc"/);
    expect(rejection('x:ja\u0000ck').message).toContain('\\u0000');
  });
});

describe('parseIdentifiers', () => {
  it('parses every identifier in order', () => {
    const parsed = parseIdentifiers(['x:Jack', `solana:${WSOL}`]);
    expect(parsed.map((p) => p.key)).toEqual(['x:jack', `sol:${WSOL}`]);
  });

  it('reports every bad value at once, by index', () => {
    let caught: unknown;
    try {
      parseIdentifiers(['x:jack', 'x:bad-handle', 'did:local:ok', 'nope']);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(AppError);
    const error = caught as AppError;
    expect(error.code).toBe('INVALID_IDENTIFIER');
    expect(error.message).toContain('"x:bad-handle"');
    expect(error.message).toContain('"nope"');
    expect(error.details.map((d) => d.path)).toEqual(['1', '3']);
    expect(error.details[0]?.message).toContain('x:bad-handle');
    expect(error.details[1]?.message).toContain('nope');
  });

  it('accepts an empty list', () => {
    expect(parseIdentifiers([])).toEqual([]);
  });
});
