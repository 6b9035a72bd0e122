// One identity per person (docs/wallets.md): finding the users split in two before a wallet resolved to the user
// holding it, and the user domain's part of merging them (scripts/merge-identities.ts runs the whole merge). A
// split is a user (the ghost) that holds, as an identifier, the embedded wallet of another user (the person): a
// batch save for `sol:<address>` used to create it when the identity provider's import did not find the wallet's
// holder. The ghost is kept, marked `mergedInto`: its Arc ID then resolves to the person's.
import { ScanCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, isConditionFailure } from '../adapters/dynamodb.js';
import { settings } from '../core/config.js';
import { identifierKey } from './identifiers.js';
import { userKeys } from './keys.js';
import { getIdentifierOwners, getUser } from './repository.js';
import { walletAddresses } from './wallet.js';

const table = () => settings().USERS_TABLE;

/** What the merge reads of a profile. */
export interface IdentityProfile {
  arcId: string;
  subject: string | null;
  providerWalletAddress: string | null;
  hasApiKey: boolean;
  identifiers: string[];
  mergedInto: string | null;
  mergedAt: string | null;
}

/** Every profile (a Scan of the users table: maintenance, not a request path). */
export const listIdentityProfiles = async (): Promise<IdentityProfile[]> => {
  const out: IdentityProfile[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await dynamo().send(
      new ScanCommand({
        TableName: table(),
        FilterExpression: 'sk = :profile',
        ProjectionExpression:
          'arcId, subject, providerWalletAddress, apiKey, identifiers, mergedInto, mergedAt',
        ExpressionAttributeValues: { ':profile': 'PROFILE' },
        ConsistentRead: true,
        ExclusiveStartKey: start,
      }),
    );
    for (const item of page.Items ?? [])
      out.push({
        arcId: String(item.arcId),
        subject: typeof item.subject === 'string' ? item.subject : null,
        providerWalletAddress:
          typeof item.providerWalletAddress === 'string' ? item.providerWalletAddress : null,
        hasApiKey: typeof item.apiKey === 'string',
        identifiers: Array.isArray(item.identifiers) ? item.identifiers.map(String) : [],
        mergedInto: typeof item.mergedInto === 'string' ? item.mergedInto : null,
        mergedAt: typeof item.mergedAt === 'string' ? item.mergedAt : null,
      });
    start = page.LastEvaluatedKey;
  } while (start);
  return out;
};

/**
 * Make a user's embedded wallet one of its identifiers when nobody holds that key yet (profiles whose address was
 * mirrored before the mirror wrote it). Conditional: the key absent, the address the one mirrored.
 */
const linkEmbeddedWallet = async (arcId: string, address: string, now: string): Promise<boolean> => {
  const key = identifierKey('sol', address);
  try {
    await dynamo().send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Put: {
              TableName: table(),
              Item: { ...userKeys.identifier(key), arcId, createdAt: now },
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
          {
            Update: {
              TableName: table(),
              Key: userKeys.profile(arcId),
              UpdateExpression: 'SET identifiers = list_append(identifiers, :k), updatedAt = :now',
              ConditionExpression: 'providerWalletAddress = :address AND NOT contains(identifiers, :key)',
              ExpressionAttributeValues: { ':k': [key], ':key': key, ':address': address, ':now': now },
            },
          },
        ],
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
};

/** A ghost and the person it is merged into, with the wallet that tells them apart. */
export interface SplitIdentity {
  ghost: string;
  person: string;
  /** The person's embedded wallet, an identifier of the ghost when the split was found. */
  wallet: string | null;
  /** When an earlier run finished merging it (re-running then moves nothing). */
  mergedAt: string | null;
}

export interface SplitSearch {
  /** Splits to merge: new ones, and merges already begun (`mergedInto` set), which re-running finishes. */
  splits: SplitIdentity[];
  /** Splits that look like one but are not merged, and why. */
  refused: Array<SplitIdentity & { reason: string }>;
  /** Users whose embedded wallet became one of their identifiers now (nobody held it). */
  linked: string[];
}

/** Why a ghost-looking holder of a person's wallet is not merged into that person; undefined when it is. */
const refusal = (
  candidate: SplitIdentity,
  profiles: Map<string, IdentityProfile>,
  persons: Set<string>,
): string | undefined => {
  const ghost = profiles.get(candidate.ghost);
  if (!ghost) return 'the user holding the wallet has no profile';
  if (ghost.hasApiKey)
    return 'the user holding the wallet signed in (it has an API key): two accounts, not a ghost';
  if (ghost.subject !== null && ghost.subject === profiles.get(candidate.person)?.subject)
    return 'both users have the same provider subject';
  if (persons.has(candidate.ghost)) return 'the user holding the wallet has a split of its own';
  if (ghost.mergedInto && ghost.mergedInto !== candidate.person)
    return `the user holding the wallet is merged into ${ghost.mergedInto}`;
  return undefined;
};

/** Every unmerged user with an embedded wallet: its mirrored address, or the provider's (mirrored now). */
const usersWithWallets = async (profiles: IdentityProfile[]) => {
  const learned = await walletAddresses(
    profiles.filter((p) => p.subject && !p.providerWalletAddress && !p.mergedInto).map((p) => p.arcId),
  );
  return profiles.flatMap((p) => {
    const address = p.providerWalletAddress ?? learned.get(p.arcId);
    return address && !p.mergedInto ? [{ arcId: p.arcId, address }] : [];
  });
};

/**
 * The users split in two: for every user with an embedded wallet (its address learned from the provider when not
 * mirrored yet), the holder of `sol:<address>` when it is another user. That other user must be a ghost: no API
 * key (nobody ever signed in as it), another provider subject, and not the person of another split; else the
 * pair is refused. Users whose wallet nobody holds get it as an identifier. Merges begun earlier are listed too.
 */
export const findSplitIdentities = async (now = new Date()): Promise<SplitSearch> => {
  const profiles = await listIdentityProfiles();
  const byId = new Map(profiles.map((p) => [p.arcId, p]));
  const persons = await usersWithWallets(profiles);
  const owners = await getIdentifierOwners(persons.map((p) => identifierKey('sol', p.address)));
  const result: SplitSearch = { splits: [], refused: [], linked: [] };
  const candidates: SplitIdentity[] = [];
  for (const { arcId, address } of persons) {
    const holder = owners.get(identifierKey('sol', address));
    if (holder && holder !== arcId)
      candidates.push({ ghost: holder, person: arcId, wallet: address, mergedAt: null });
    else if (!holder && (await linkEmbeddedWallet(arcId, address, now.toISOString())))
      result.linked.push(arcId);
  }
  const personIds = new Set(candidates.map((c) => c.person));
  for (const candidate of candidates) {
    const reason = refusal(candidate, byId, personIds);
    if (reason) result.refused.push({ ...candidate, reason });
    else result.splits.push({ ...candidate, mergedAt: byId.get(candidate.ghost)?.mergedAt ?? null });
  }
  const found = new Set(result.splits.map((s) => s.ghost));
  for (const p of profiles)
    if (p.mergedInto && !found.has(p.arcId))
      result.splits.push({ ghost: p.arcId, person: p.mergedInto, wallet: null, mergedAt: p.mergedAt });
  return result;
};

/**
 * Mark the ghost merged into the person, first: from then on the ghost's Arc ID resolves to the person's, so
 * nothing new lands on it while its data moves. Conditional on the ghost having no API key and not being merged
 * into anyone else, and on the person existing and not being merged itself.
 */
export const beginMerge = async (split: SplitIdentity, now: string): Promise<void> => {
  await dynamo().send(
    new TransactWriteCommand({
      TransactItems: [
        {
          Update: {
            TableName: table(),
            Key: userKeys.profile(split.ghost),
            UpdateExpression:
              'SET mergedInto = :person, mergeStartedAt = if_not_exists(mergeStartedAt, :now)',
            ConditionExpression:
              'attribute_exists(pk) AND attribute_not_exists(apiKey) AND (attribute_not_exists(mergedInto) OR mergedInto = :person)',
            ExpressionAttributeValues: { ':person': split.person, ':now': now },
          },
        },
        {
          ConditionCheck: {
            TableName: table(),
            Key: userKeys.profile(split.person),
            ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(mergedInto)',
          },
        },
      ],
    }),
  );
};

/**
 * Every identifier the ghost still holds (its wallet, its provider subject, any other) now names the person: each
 * identifier item is repointed conditional on still naming the ghost, and added to the person's list. Returns the
 * identifiers moved (none on a re-run).
 */
export const moveIdentifiers = async (split: SplitIdentity, now: string): Promise<string[]> => {
  const ghost = await getUser(split.ghost);
  if (!ghost) return [];
  const owners = await getIdentifierOwners(ghost.identifiers);
  const moved: string[] = [];
  for (const key of ghost.identifiers) {
    if (owners.get(key) !== split.ghost) continue;
    const person = await getUser(split.person);
    const listed = person?.identifiers.includes(key) ?? false;
    await dynamo().send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: table(),
              Key: userKeys.identifier(key),
              UpdateExpression: 'SET arcId = :person, mergedFrom = :ghost, updatedAt = :now',
              ConditionExpression: 'arcId = :ghost',
              ExpressionAttributeValues: { ':person': split.person, ':ghost': split.ghost, ':now': now },
            },
          },
          ...(listed
            ? []
            : [
                {
                  Update: {
                    TableName: table(),
                    Key: userKeys.profile(split.person),
                    UpdateExpression: 'SET identifiers = list_append(identifiers, :k), updatedAt = :now',
                    ConditionExpression: 'attribute_exists(pk) AND NOT contains(identifiers, :key)',
                    ExpressionAttributeValues: { ':k': [key], ':key': key, ':now': now },
                  },
                },
              ]),
        ],
      }),
    );
    moved.push(key);
  }
  return moved;
};

/** Record that nothing is left to move (a re-run keeps the first time). */
export const completeMerge = async (split: SplitIdentity, now: string): Promise<void> => {
  await dynamo().send(
    new UpdateCommand({
      TableName: table(),
      Key: userKeys.profile(split.ghost),
      UpdateExpression: 'SET mergedAt = if_not_exists(mergedAt, :now)',
      ConditionExpression: 'mergedInto = :person',
      ExpressionAttributeValues: { ':person': split.person, ':now': now },
    }),
  );
};
