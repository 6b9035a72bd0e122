// Display names (lib/play/display-name.ts) and the identifier a board shows for a player (lib/user/known-as.ts):
// pure rules, no stack.
import { describe, expect, it } from 'vitest';
import { AppError } from '../../lib/core/errors.js';
import { moderateDisplayName } from '../../lib/play/display-name.js';
import { studioIdentifier } from '../../lib/user/known-as.js';

const refusal = (raw: string): AppError => {
  try {
    moderateDisplayName(raw);
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error(`accepted ${JSON.stringify(raw)}`);
};

describe('display names', () => {
  it.each([
    ['Star Catcher', 'Star Catcher'],
    ["O'Neil-2 (the 3rd) & co.!?", "O'Neil-2 (the 3rd) & co.!?"],
    ['Zoë', 'Zoë'],
    // Decomposed e + combining acute becomes the one precomposed code point.
    ['Jose\u0301', 'José'],
    ['Ŝtelo_42', 'Ŝtelo_42'],
    ['東京の星', '東京の星'],
    ['हिन्दी', 'हिन्दी'],
    ['x', 'x'],
    ['a'.repeat(32), 'a'.repeat(32)],
  ])('accepts %j as %j (NFC)', (raw, stored) => {
    expect(moderateDisplayName(raw)).toBe(stored);
  });

  it('counts the length after NFC normalisation, in code points', () => {
    // 32 letters each written as base + combining mark: 64 code points sent, 32 stored.
    expect([...moderateDisplayName('e\u0301'.repeat(32))]).toHaveLength(32);
    expect(refusal('a'.repeat(33)).message).toMatch(/at most 32 characters, got 33/);
  });

  it.each([
    ['', /must not be empty/],
    ['evil\u202Egnp.exe', /control, format or invisible characters \(U\+202E\)/],
    ['a\u2066b\u2069', /U\+2066/],
    ['zero\u200Bwidth', /U\+200B/],
    ['join\u200Dme', /U\+200D/],
    ['bom\uFEFF', /U\+FEFF/],
    ['tab\there', /U\+0009/],
    ['new\nline', /U\+000A/],
    ['nul\u0000', /U\+0000/],
    ['\u3164', /U\+3164/],
    ['ㅤfiller\u115F', /U\+3164|U\+115F/],
    ['no\u00A0break', /plain spaces \(U\+00A0\)/],
    ['wide\u3000space', /plain spaces \(U\+3000\)/],
    ['star★', /letters, digits, spaces .* only \("★" U\+2605\)/],
    ['rocket 🚀', /U\+1F680/],
    ['<script>', /"<"/],
    ['a@b', /"@"/],
    ['#1 player', /"#"/],
    [' padded', /must not start or end with a space/],
    ['padded ', /must not start or end with a space/],
    ['two  spaces', /two spaces in a row/],
    ['...', /must contain a letter or a digit/],
    ['\u0301abc', /must not start with a combining mark/],
  ])('refuses %j with a reason', (raw, reason) => {
    const error = refusal(raw);
    expect(error.code).toBe('INVALID_DISPLAY_NAME');
    expect(error.status).toBe(400);
    expect(error.message).toMatch(reason);
    expect(error.details[0]?.path).toBe('displayName');
  });
});

describe('the identifier a board shows for a player', () => {
  const gameId = '6f1d3c1e-2a4b-4c5d-8e9f-0a1b2c3d4e5f';
  const own = 'did:game6f1d3c1e2a4b4c5d8e9f0a1b2c3d4e5f:player-7';
  const other = 'did:game00000000000040008000000000000000:player-9';

  it("prefers the player's subject of the game's own auth, wherever it is in the list", () => {
    expect(studioIdentifier({ identifiers: ['did:privy:abc', own] }, gameId, 'player')).toBe(own);
  });

  it("else shows the identifier the user was created with, never another game's subject", () => {
    expect(studioIdentifier({ identifiers: ['x:star', 'did:privy:abc'] }, gameId, 'player')).toBe('x:star');
    expect(studioIdentifier({ identifiers: [other, 'sol:abc'] }, gameId, 'studio')).toBe('sol:abc');
    expect(studioIdentifier({ identifiers: [other] }, gameId, 'studio')).toBeNull();
    expect(studioIdentifier({ identifiers: [] }, gameId, 'studio')).toBeNull();
  });

  it('shows an email to the studio only', () => {
    const user = { identifiers: ['email:ann@example.com', 'did:privy:ann'] };
    expect(studioIdentifier(user, gameId, 'studio')).toBe('email:ann@example.com');
    expect(studioIdentifier(user, gameId, 'player')).toBeNull();
  });
});
