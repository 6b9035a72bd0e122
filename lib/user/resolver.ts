import { randomUUID } from 'node:crypto';
import { isConditionFailure } from '../adapters/dynamodb.js';
import { AppError } from '../core/errors.js';
import type { IdentityDirectory } from './directory.js';
import { type ParsedIdentifier, parseIdentifiers } from './identifiers.js';
import { importPending, type PendingImport } from './importer.js';
import { createUser, getIdentifierOwners, lookupIdentities } from './repository.js';

export interface ResolverDeps {
  directory: IdentityDirectory;
  /**
   * Where users created here go to be imported into the provider (`queueImports`: the import queue). Absent
   * (in-process tests and scripts): imported at once through `directory`, in the same call.
   */
  imports?: (pending: PendingImport[]) => Promise<void>;
  now?: () => Date;
}

/** Supplied identifier → Arc ID, as returned to clients under `playerIdToArcId`. */
export type PlayerIdToArcId = Record<string, string>;

const unknown = (raw: string, why: string) =>
  new AppError('INVALID_IDENTIFIER', `Invalid identifier "${raw}": ${why}`);

/**
 * Make sure a user exists for one identifier that has no owner yet, without asking the identity provider: the
 * Arc user is created at once, holding the identifier, and imported into the provider afterwards
 * (lib/user/importer.ts), which gives it its provider subject and embedded wallet, or merges it into the Arc user
 * its person already has. A did names a provider user already: it must be known to the provider, and its user
 * holds it as its subject. The Arc ID is random (one derived from an email would tell it to anyone who knows the
 * email); the conditional transaction makes concurrent creations of the same identifier converge on one user:
 * the loser re-reads the winner's Arc ID. `created` is true for the caller that created it.
 */
const createFor = async (
  id: ParsedIdentifier,
  firstArcId: string,
  deps: ResolverDeps,
): Promise<{ arcId: string; created: boolean }> => {
  const now = (deps.now?.() ?? new Date()).toISOString();
  if (id.kind === 'did' && !(await deps.directory.isKnownSubject(id.value)))
    throw unknown(id.raw, 'unknown user');
  for (let attempt = 0; attempt < 3; attempt++) {
    // The first attempt follows the batch read that found no owner; a lost race reads the winner.
    const winner = attempt === 0 ? undefined : (await getIdentifierOwners([id.key])).get(id.key);
    if (winner) return { arcId: winner, created: false };
    const arcId = attempt === 0 ? firstArcId : randomUUID();
    try {
      await createUser({
        arcId,
        ...(id.kind === 'did' ? { subject: id.value } : {}),
        identifiers: [id.key],
        now,
      });
      return { arcId, created: true };
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      // Someone else created it concurrently: read again.
    }
  }
  throw new Error(`Could not settle the owner of ${id.key}`);
};

/** Import the users this call created at once, through the directory (no import queue). */
const importCreated = async (pending: PendingImport[], deps: ResolverDeps) => {
  if (pending.length === 0) return;
  const failed = await importPending(pending, {
    directory: deps.directory,
    // In process, a person's second Arc user is left for scripts/merge-identities.ts.
    merge: async () => true,
    ...(deps.now ? { now: deps.now } : {}),
  });
  if (failed.length > 0) throw new Error(`${failed.length} user(s) could not be imported`);
};

/**
 * Resolve up to 100 player identifiers to Arc IDs: one BatchGetItem for the known ones, then one SendMessageBatch
 * queueing the import of those never seen before and one conditional transaction creating each. Unknown raw
 * UUIDs and dids are INVALID_IDENTIFIER. The Arc ID of a user merged into another resolves to that other user.
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
  // The Arc IDs are chosen first and queued for import before the users are written: a crash or a failed send
  // in between then leaves no user that is never imported (the worker skips an Arc ID that was never created).
  const planned = [...missing.values()].map((id) => ({ id, arcId: randomUUID() }));
  if (deps.imports)
    await deps.imports(
      planned.filter(({ id }) => id.kind !== 'did').map(({ id, arcId }) => ({ arcId, identifier: id.key })),
    );
  const created = await Promise.all(
    planned.map(async ({ id, arcId }) => ({ id, ...(await createFor(id, arcId, deps)) })),
  );
  if (!deps.imports)
    await importCreated(
      created
        .filter((c) => c.created && c.id.kind !== 'did')
        .map((c) => ({ arcId: c.arcId, identifier: c.id.key })),
      deps,
    );
  const byKey = new Map(created.map((c) => [c.id.key, c.arcId]));
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
