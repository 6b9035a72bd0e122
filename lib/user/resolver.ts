import { randomUUID } from 'node:crypto';
import { isConditionFailure } from '../adapters/dynamodb.js';
import { AppError } from '../core/errors.js';
import type { IdentityDirectory } from './directory.js';
import { identifierKey, type ParsedIdentifier, parseIdentifiers } from './identifiers.js';
import { createUser, getIdentifierOwners, linkIdentifier, lookupIdentities } from './repository.js';

export interface ResolverDeps {
  directory: IdentityDirectory;
  now?: () => Date;
}

/** Supplied identifier → Arc ID, as returned to clients under `playerIdToArcId`. */
export type PlayerIdToArcId = Record<string, string>;

const unknown = (raw: string, why: string) =>
  new AppError('INVALID_IDENTIFIER', `Invalid identifier "${raw}": ${why}`);

/**
 * The provider user an identifier names, and the identifier keys its Arc user holds: the identifier and the
 * subject (a did is its own key). No subject: an X handle nobody has signed in with (lib/user/directory.ts), an
 * Arc user of its own for now.
 */
const providerSide = async (id: ParsedIdentifier, deps: ResolverDeps) => {
  const found = id.kind === 'did' ? { subject: id.value } : await deps.directory.findOrCreate(id);
  if (id.kind === 'did' && !(await deps.directory.isKnownSubject(id.value)))
    throw unknown(id.raw, 'unknown user');
  return {
    ...found,
    ownKeys: found.subject ? [id.key, found.subject] : [id.key],
    walletKey: found.walletAddress ? identifierKey('sol', found.walletAddress) : undefined,
  };
};

/**
 * Make sure a user exists for one identifier that has no owner yet. Wallets, emails and handles are found or
 * created through the identity provider, which answers the person holding them (for a wallet: the user it is
 * linked to or embedded in); a did must be known to it. The Arc user is then the one of that provider subject:
 * the identifier is linked to it when it exists, so a user's own embedded wallet resolves to that user and
 * never to a second one. A new user also gets its embedded wallet (`sol:<address>`) as an identifier, when no
 * one holds that key yet. Conditional writes make concurrent creations of the same identifier converge on one
 * user: the loser re-reads the winner's Arc ID.
 */
const createFor = async (id: ParsedIdentifier, deps: ResolverDeps): Promise<string> => {
  const now = (deps.now?.() ?? new Date()).toISOString();
  const found = await providerSide(id, deps);
  const { subject, ownKeys, walletKey } = found;
  for (let attempt = 0; attempt < 3; attempt++) {
    const owners = await getIdentifierOwners([...ownKeys, ...(walletKey ? [walletKey] : [])]);
    const winner = owners.get(id.key);
    if (winner) return winner;
    const subjectOwner = subject ? owners.get(subject) : undefined;
    try {
      if (subjectOwner) {
        await linkIdentifier(subjectOwner, id.key, now);
        return subjectOwner;
      }
      const arcId = randomUUID();
      // A wallet key held by another user is a split made before wallets resolved to their holder: left to
      // scripts/merge-identities.ts, never written over.
      const identifiers = [
        ...new Set([...ownKeys, ...(walletKey && !owners.has(walletKey) ? [walletKey] : [])]),
      ];
      // The provider created the user's embedded wallet (POST /v1/users with a Solana wallet): payouts reach it,
      // and its address is mirrored now so that a settlement need not ask the provider for it.
      await createUser({
        arcId,
        subject,
        identifiers,
        providerWalletAddress: found.walletAddress,
        providerWalletId: found.walletId,
        now,
      });
      return arcId;
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      // Someone else created or linked it concurrently: read again.
    }
  }
  throw new Error(`Could not settle the owner of ${id.key}`);
};

/**
 * Resolve up to 100 player identifiers to Arc IDs: one BatchGetItem for the known ones, then one conditional
 * transaction per identifier never seen before. Unknown raw UUIDs and dids are INVALID_IDENTIFIER. The Arc ID of a
 * user merged into another resolves to that other user.
 */
export const resolveIdentifiers = async (raws: string[], deps: ResolverDeps): Promise<PlayerIdToArcId> => {
  const parsed = parseIdentifiers(raws);
  const arcIds = parsed.filter((p) => p.kind === 'arc').map((p) => p.value);
  const keys = parsed.filter((p) => p.kind !== 'arc').map((p) => p.key);
  const { users, owners } = await lookupIdentities(arcIds, keys);
  const mapping: PlayerIdToArcId = {};
  const missing = new Map<string, ParsedIdentifier>();
  for (const id of parsed) {
    if (id.kind === 'arc') {
      const user = users.get(id.value);
      if (!user) throw unknown(id.raw, 'no user has this Arc ID');
      mapping[id.raw] = user;
    } else {
      const owner = owners.get(id.key);
      if (owner) mapping[id.raw] = owner;
      else missing.set(id.key, id);
    }
  }
  const created = await Promise.all(
    [...missing.values()].map(async (id) => [id.key, await createFor(id, deps)] as const),
  );
  const byKey = new Map(created);
  for (const id of parsed) mapping[id.raw] ??= byKey.get(id.key) ?? '';
  return mapping;
};

/**
 * Resolve identifiers for a read: one BatchGetItem, nothing created. Unknown players map to null; malformed
 * identifiers are still INVALID_IDENTIFIER.
 */
export const resolveKnownIdentifiers = async (raws: string[]): Promise<Record<string, string | null>> => {
  const parsed = parseIdentifiers(raws);
  const { users, owners } = await lookupIdentities(
    parsed.filter((p) => p.kind === 'arc').map((p) => p.value),
    parsed.filter((p) => p.kind !== 'arc').map((p) => p.key),
  );
  return Object.fromEntries(
    parsed.map((id) => [
      id.raw,
      id.kind === 'arc' ? (users.get(id.value) ?? null) : (owners.get(id.key) ?? null),
    ]),
  );
};
