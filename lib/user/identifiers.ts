// Player identifiers: parsing, strict validation and normalisation. Pure: no I/O.
//
// Forms, with case-insensitive prefixes:
//   <uuid>                     kind 'arc'   Arc ID (any RFC 4122/9562 variant UUID), lower-cased
//   did:<idp>:<id>             kind 'did'   identity-provider subject; value is the whole did
//   sol:|solana:<base58>       kind 'sol'   Solana public key (base58 of exactly 32 bytes), kept as given
//   eth:|ethereum:0x<40 hex>   kind 'eth'   Ethereum address, lower-cased. Mixed case is accepted without an
//                                           EIP-55 checksum check (no keccak implementation is available here).
//   x:|twitter:[@]<handle>     kind 'x'     X handle, 1–15 of [A-Za-z0-9_], lower-cased
//   email:<address>            kind 'email' practical RFC 5322 address, lower-cased as a whole
import bs58 from 'bs58';
import { AppError, type ErrorDetail } from '../core/errors.js';

export type IdentifierKind = 'arc' | 'did' | 'sol' | 'eth' | 'x' | 'email';

export interface ParsedIdentifier {
  /** Exactly what the caller supplied (the key of `playerIdToArcId`). */
  raw: string;
  kind: IdentifierKind;
  /** Normalised value: the form stored and compared. */
  value: string;
  /** Canonical storage key, unique across kinds (see `identifierKey`). */
  key: string;
}

/** Longest identifier accepted at all: a did is at most 4 + 64 + 1 + 128 chars, an email 6 + 254. */
const MAX_RAW_LENGTH = 300;
/** Printable ASCII without space: rejects whitespace, control characters and every non-ASCII lookalike. */
const PRINTABLE_ASCII = /^[\x21-\x7e]+$/;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;
/** `did:<idp>:<id>` as this service accepts it; exported for the bearer-token subject check. */
export const DID_PATTERN = /^did:[a-z0-9]{1,64}:[A-Za-z0-9._:-]{1,128}$/;
const ETH_ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const X_HANDLE = /^[A-Za-z0-9_]{1,15}$/;

const EMAIL_MAX = 254;
const EMAIL_LOCAL = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
const DOMAIN_LABEL = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;
/** A TLD is letters only, or an IDN in its ASCII (punycode) form. */
const TLD = /^(?:[A-Za-z]{2,63}|xn--[A-Za-z0-9-]{1,59})$/;

const PREFIX_KIND: Record<string, Exclude<IdentifierKind, 'arc'>> = {
  did: 'did',
  sol: 'sol',
  solana: 'sol',
  eth: 'eth',
  ethereum: 'eth',
  x: 'x',
  twitter: 'x',
  email: 'email',
};

/** Decode Bitcoin-alphabet base58 (as Solana uses, with bs58); undefined for any character outside it (0, O, I, l, …). */
export const base58Decode = (input: string): Uint8Array | undefined => bs58.decodeUnsafe(input);

/** The storage key of a normalised identifier: `<kind>:<value>`, except a did, which already starts with `did:`. */
export const identifierKey = (kind: IdentifierKind, value: string): string =>
  kind === 'did' ? value : `${kind}:${value}`;

/** Why a value is invalid; undefined when it is valid. */
type Check = (value: string) => string | undefined;

const checkEmail: Check = (address) => {
  if (address.length > EMAIL_MAX) return `must be at most ${EMAIL_MAX} characters`;
  const at = address.indexOf('@');
  if (at < 0 || at !== address.lastIndexOf('@')) return 'must contain exactly one @';
  const local = address.slice(0, at);
  const domain = address.slice(at + 1);
  if (local.length === 0 || local.length > 64) return 'local part must be 1 to 64 characters';
  if (!EMAIL_LOCAL.test(local)) return 'local part has invalid characters or dots';
  const labels = domain.split('.');
  if (domain.length > 253 || labels.length < 2) return 'domain must have at least two labels';
  if (!labels.every((label) => DOMAIN_LABEL.test(label))) return 'domain has an invalid label';
  if (!TLD.test(labels[labels.length - 1] ?? '')) return 'top-level domain must be at least two letters';
  return undefined;
};

const normalisers: Record<
  Exclude<IdentifierKind, 'arc'>,
  (rest: string) => { value?: string; reason?: string }
> = {
  did: (rest) => {
    const did = `did:${rest}`;
    return DID_PATTERN.test(did) ? { value: did } : { reason: 'must be did:<idp>:<id>' };
  },
  sol: (rest) => {
    const bytes = base58Decode(rest);
    if (!bytes) return { reason: 'must be base58 (no 0, O, I or l)' };
    if (bytes.length !== 32) return { reason: `must decode to 32 bytes, got ${bytes.length}` };
    return { value: rest };
  },
  eth: (rest) =>
    ETH_ADDRESS.test(rest)
      ? { value: rest.toLowerCase() }
      : { reason: 'must be 0x followed by 40 hex digits' },
  x: (rest) => {
    const handle = rest.startsWith('@') ? rest.slice(1) : rest;
    return X_HANDLE.test(handle)
      ? { value: handle.toLowerCase() }
      : { reason: 'handle must be 1 to 15 letters, digits or underscores' };
  },
  email: (rest) => {
    const reason = checkEmail(rest);
    return reason ? { reason } : { value: rest.toLowerCase() };
  },
};

/** Quote a value for an error message: escaped and bounded, so the message stays safe to log and show. */
const quote = (raw: string) => JSON.stringify(raw.length > 120 ? `${raw.slice(0, 120)}…` : raw);

const invalid = (raw: string, reason: string) =>
  new AppError('INVALID_IDENTIFIER', `Invalid player identifier ${quote(raw)}: ${reason}`, [
    { path: raw.slice(0, 120), message: reason },
  ]);

const reasonOf = (raw: string): { kind: IdentifierKind; value: string } | string => {
  if (raw.length === 0) return 'must not be empty';
  if (raw.length > MAX_RAW_LENGTH) return `must be at most ${MAX_RAW_LENGTH} characters`;
  if (!PRINTABLE_ASCII.test(raw)) return 'must be printable ASCII without spaces';
  const colon = raw.indexOf(':');
  if (colon < 0) {
    return UUID.test(raw) ? { kind: 'arc', value: raw.toLowerCase() } : 'expected a UUID or <type>:<value>';
  }
  const prefix = raw.slice(0, colon).toLowerCase();
  const kind = PREFIX_KIND[prefix];
  if (!kind) return `unknown prefix "${raw.slice(0, Math.min(colon, 20))}"`;
  const rest = raw.slice(colon + 1);
  if (rest.length === 0) return 'value must not be empty';
  const { value, reason } = normalisers[kind](rest);
  return value === undefined ? `${prefix} ${reason ?? 'is invalid'}` : { kind, value };
};

/** Parse and validate one identifier; throws AppError('INVALID_IDENTIFIER') naming the raw value. */
export const parseIdentifier = (raw: string): ParsedIdentifier => {
  if (typeof raw !== 'string') throw invalid(String(raw), 'must be a string');
  const result = reasonOf(raw);
  if (typeof result === 'string') throw invalid(raw, result);
  return { raw, kind: result.kind, value: result.value, key: identifierKey(result.kind, result.value) };
};

/**
 * Parse many identifiers; throws one INVALID_IDENTIFIER whose details list every bad value under its field's path
 * in the request (`pathOf(index)`, e.g. `entries.3.playerId`; the index by default).
 */
export const parseIdentifiers = (
  raws: readonly string[],
  pathOf: (index: number) => string = String,
): ParsedIdentifier[] => {
  const parsed: ParsedIdentifier[] = [];
  const bad: { raw: string; detail: ErrorDetail }[] = [];
  raws.forEach((raw, index) => {
    try {
      parsed.push(parseIdentifier(raw));
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      bad.push({ raw, detail: { path: pathOf(index), message: error.message } });
    }
  });
  if (bad.length > 0) {
    const shown = bad.slice(0, 10).map(({ raw }) => quote(String(raw)));
    const more = bad.length > shown.length ? ` and ${bad.length - shown.length} more` : '';
    throw new AppError(
      'INVALID_IDENTIFIER',
      `Invalid player identifier${bad.length > 1 ? 's' : ''}: ${shown.join(', ')}${more}`,
      bad.map(({ detail }) => detail),
    );
  }
  return parsed;
};

/** True when the value is a did this service accepts as an identity-provider subject. */
export const isDid = (value: string): boolean => DID_PATTERN.test(value);

/** The prefix of the subjects under which a game's own players (its JWTs' `sub`) are known: `did:game<hex>:`. */
export const gameSubjectPrefix = (gameId: string) => `did:game${gameId.replaceAll('-', '')}:`;

/** Any game's own-auth subject. */
export const GAME_SUBJECT = /^did:game[0-9a-f]{32}:/;
