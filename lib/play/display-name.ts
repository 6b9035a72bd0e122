// Display names shown on boards, moderated by length and charset. Pure: no I/O.
//
// A name is NFC-normalised, then must be 1–32 code points of letters (with their combining marks), decimal
// digits, single plain spaces between words, and - _ . ' ! ? ( ) &. Refused with the reason: control and format
// characters (bidi overrides and isolates, zero-width joiners and spaces), other spaces (no-break, ideographic),
// symbols and emoji, the Hangul fillers (letters that render as nothing), and names without a letter or digit.
import { AppError } from '../core/errors.js';

export const DISPLAY_NAME_MAX = 32;

const PUNCTUATION = "-_.'!?()&";
/** Letters that render blank (Hangul choseong and jungseong fillers, the Hangul and halfwidth fillers). */
const BLANK_LETTERS = /[\u115F\u1160\u3164\uFFA0]/u;
const ALLOWED = /^[\p{L}\p{M}\p{Nd} \-_.'!?()&]$/u;
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Co}\p{Cs}\p{Cn}\p{Zl}\p{Zp}]/u;

const refuse = (path: string, reason: string) =>
  new AppError('INVALID_DISPLAY_NAME', `Invalid display name: ${reason}`, [{ path, message: reason }]);

/** The code point as U+XXXX, so a reason names an invisible character visibly. */
const codePoint = (c: string) => `U+${(c.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;

/** Why a (normalised) name is refused, or undefined when it is fine. */
const reasonOf = (name: string): string | undefined => {
  const chars = [...name];
  if (chars.length === 0) return 'must not be empty';
  if (chars.length > DISPLAY_NAME_MAX)
    return `must be at most ${DISPLAY_NAME_MAX} characters, got ${chars.length}`;
  for (const c of chars) {
    if (INVISIBLE.test(c) || BLANK_LETTERS.test(c))
      return `must not contain control, format or invisible characters (${codePoint(c)})`;
    if (/\s/u.test(c) && c !== ' ') return `spaces must be plain spaces (${codePoint(c)})`;
    if (!ALLOWED.test(c))
      return `may hold letters, digits, spaces and ${PUNCTUATION.split('').join(' ')} only (${JSON.stringify(c)} ${codePoint(c)})`;
  }
  if (/^\p{M}/u.test(name)) return 'must not start with a combining mark';
  if (name !== name.trim()) return 'must not start or end with a space';
  if (name.includes('  ')) return 'must not hold two spaces in a row';
  if (!/[\p{L}\p{Nd}]/u.test(name)) return 'must contain a letter or a digit';
  return undefined;
};

/** The name as stored (NFC), or INVALID_DISPLAY_NAME (400) naming the reason under `path`. */
export const moderateDisplayName = (raw: string, path = 'displayName'): string => {
  const name = raw.normalize('NFC');
  const reason = reasonOf(name);
  if (reason) throw refuse(path, reason);
  return name;
};
