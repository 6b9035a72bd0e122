import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { generateSymbol, symbolCandidates, validateSymbol } from '../../lib/launcher/symbol.js';

describe('generateSymbol', () => {
  it.each([
    ['Call of Duty', 'COD'],
    ['Grand Theft Auto Five', 'GTAF'],
    ['Space Invaders', 'SPAINV'],
    ['Go Fish', 'GOFISH'],
    ['Minecraft', 'MNCRFT'],
    ['Tetris', 'TETRIS'],
    ['Pokémon Étoile', 'POKETO'],
    ['2048', '2048'],
    ['  snake!! ', 'SNAKE'],
  ])('%s → %s', (name, symbol) => {
    expect(generateSymbol(name)).toBe(symbol);
  });

  it('completes short and non-Latin names deterministically', () => {
    const short = generateSymbol('Q');
    expect(short).toMatch(/^Q[A-Z0-9]{3}$/);
    expect(generateSymbol('Q')).toBe(short);
    const cjk = generateSymbol('俄罗斯方块');
    expect(cjk).toMatch(/^G[A-Z0-9]{3}$/);
    expect(generateSymbol('俄罗斯方块')).toBe(cjk);
    expect(generateSymbol('贪吃蛇')).not.toBe(cjk);
  });

  it('always yields 3–6 characters of A–Z0–9, deterministically', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), (name) => {
        const symbol = generateSymbol(name);
        expect(symbol).toMatch(/^[A-Z0-9]{3,6}$/);
        expect(generateSymbol(name)).toBe(symbol);
        expect(validateSymbol(symbol)).toEqual({ valid: true, symbol });
      }),
    );
  });

  it('offers distinct valid alternatives, starting with the generated symbol', () => {
    const candidates = symbolCandidates('Space Invaders');
    expect(candidates[0]).toBe('SPAINV');
    expect(candidates.slice(1, 3)).toEqual(['SPAIN2', 'SPAIN3']);
    expect(new Set(candidates).size).toBe(candidates.length);
    expect(candidates.length).toBe(12);
    for (const c of candidates) expect(validateSymbol(c).valid).toBe(true);
  });
});

describe('validateSymbol', () => {
  it('normalises case and surrounding space', () => {
    expect(validateSymbol(' abc1 ')).toEqual({ valid: true, symbol: 'ABC1' });
    expect(validateSymbol('Ab')).toEqual({ valid: true, symbol: 'AB' });
    expect(validateSymbol('ABCDEFGHIJ')).toEqual({ valid: true, symbol: 'ABCDEFGHIJ' });
  });

  it.each(['', 'A', 'ABCDEFGHIJK', 'AB-C', 'A B', '$ABC', 'ÉCU'])('rejects %j', (input) => {
    const result = validateSymbol(input);
    expect(result.valid).toBe(false);
    if (!result.valid) expect(result.message).toMatch(/gameCoinSymbol/);
  });
});
