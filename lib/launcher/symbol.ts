// Game coin tickers (`gameCoinSymbol`, docs/game-coin.md "Symbols"): validation of custom symbols and the
// deterministic symbol generated from a game's name. Uniqueness is not decided here: the launch reserves the symbol
// with a conditional write and, when taken, moves on to the next of `symbolCandidates`.
import { createHash } from 'node:crypto';

export const SYMBOL_MIN = 2;
export const SYMBOL_MAX = 10;
const SYMBOL_PATTERN = /^[A-Z0-9]+$/;
const GENERATED_MIN = 3;
const GENERATED_MAX = 6;

export type SymbolCheck = { valid: true; symbol: string } | { valid: false; message: string };

/** Normalise (trim, upper-case) and check a custom symbol: 2–10 characters of A–Z and 0–9. */
export const validateSymbol = (input: string): SymbolCheck => {
  const symbol = input.trim().toUpperCase();
  if (symbol.length < SYMBOL_MIN || symbol.length > SYMBOL_MAX)
    return { valid: false, message: `gameCoinSymbol must be ${SYMBOL_MIN} to ${SYMBOL_MAX} characters` };
  if (!SYMBOL_PATTERN.test(symbol))
    return { valid: false, message: 'gameCoinSymbol may contain only letters A-Z and digits 0-9' };
  return { valid: true, symbol };
};

/** Upper-case A–Z0–9 words of a name, with accents folded (é → E) and everything else a separator. */
const wordsOf = (name: string): string[] =>
  name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toUpperCase()
    .split(/[^A-Z0-9]+/)
    .filter(Boolean);

const hashChars = (name: string, count: number): string => {
  const digest = BigInt(`0x${createHash('sha256').update(name).digest('hex')}`)
    .toString(36)
    .toUpperCase();
  return digest.slice(0, count);
};

const squeeze = (word: string): string => {
  if (word.length <= GENERATED_MAX) return word;
  const consonants = word[0] + word.slice(1).replace(/[AEIOU]/g, '');
  return (consonants.length >= GENERATED_MIN ? consonants : word).slice(0, GENERATED_MAX);
};

/**
 * Deterministic ticker from a game name, 3–6 characters A–Z0–9: initials for three or more words
 * ("Call of Duty" → COD), three letters of each of two words ("Space Invaders" → SPAINV), one word as is
 * or without inner vowels ("Minecraft" → MNCRFT); short or non-Latin names are completed from a hash.
 */
export const generateSymbol = (gameName: string): string => {
  const words = wordsOf(gameName);
  let symbol: string;
  if (words.length >= 3) symbol = words.map((w) => w[0]).join('');
  else if (words.length === 2) {
    const [first = '', second = ''] = words;
    const head = first.slice(0, 3);
    symbol = head + second.slice(0, GENERATED_MAX - head.length);
  } else symbol = squeeze(words[0] ?? '');
  symbol = symbol.slice(0, GENERATED_MAX);
  if (symbol.length < GENERATED_MIN) symbol = (symbol || 'G') + hashChars(gameName, GENERATED_MIN);
  return symbol.slice(0, GENERATED_MAX);
};

/** The generated symbol followed by deterministic alternatives (suffix 2–9, then hashed) to try when taken. */
export const symbolCandidates = (gameName: string, count = 12): string[] => {
  const base = generateSymbol(gameName);
  const stem = base.slice(0, GENERATED_MAX - 1);
  const out = [base];
  for (let n = 2; n <= 9 && out.length < count; n++) out.push(`${stem}${n}`);
  for (let n = 0; out.length < count; n++) out.push(`${stem.slice(0, 3)}${hashChars(`${gameName}#${n}`, 3)}`);
  return [...new Set(out)].slice(0, count);
};
