import { BatchGetCommand, GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, isConditionFailure } from '../adapters/dynamodb.js';
import { settings } from '../core/config.js';
import { userKeys } from './keys.js';
import { type User, userSchema } from './model.js';

const table = () => settings().USERS_TABLE;

export interface ApiKeyRecord {
  arcId: string;
  secretCipher: string;
  /** Every request signed with this key must bind its body and its canonical query (the strict form). */
  strictSigning: boolean;
}

export interface NewUser {
  arcId: string;
  subject?: string | undefined;
  identifiers: string[];
  apiKey?: { apiKey: string; secretCipher: string } | undefined;
  /** The provider's embedded wallet address when known at creation (see WalletRef). */
  providerWalletAddress?: string | undefined;
  /** The provider's id of that wallet (its wallet API takes the id, not the address). */
  providerWalletId?: string | undefined;
  now: string;
}

const toUser = (item: Record<string, unknown> | undefined): User | undefined =>
  item ? userSchema.parse(item) : undefined;

/** One user by Arc ID (one GetItem). */
export const getUser = async (arcId: string): Promise<User | undefined> => {
  const { Item } = await dynamo().send(new GetCommand({ TableName: table(), Key: userKeys.profile(arcId) }));
  return toUser(Item);
};

const batchGet = async (keys: Array<{ pk: string; sk: string }>): Promise<Record<string, unknown>[]> => {
  const items: Record<string, unknown>[] = [];
  for (let i = 0; i < keys.length; i += 100) {
    let request: Record<string, { Keys: Array<Record<string, unknown>> }> | undefined = {
      [table()]: { Keys: keys.slice(i, i + 100) },
    };
    // UnprocessedKeys are retried with backoff until DynamoDB has answered for every key.
    for (let attempt = 0; request && Object.keys(request).length > 0; attempt++) {
      if (attempt > 0) await new Promise((r) => setTimeout(r, Math.min(1000, 25 * 2 ** attempt)));
      const out = await dynamo().send(new BatchGetCommand({ RequestItems: request }));
      items.push(...(out.Responses?.[table()] ?? []));
      request = out.UnprocessedKeys as typeof request;
    }
  }
  return items;
};

/** Arc IDs of the users owning identifier keys (`kind:value`), in one BatchGetItem per 100 keys. */
export const getIdentifierOwners = async (keys: string[]): Promise<Map<string, string>> => {
  const unique = [...new Set(keys)];
  const items = await batchGet(unique.map(userKeys.identifier));
  return new Map(items.map((item) => [String(item.pk).slice('IDENT#'.length), String(item.arcId)]));
};

/** Which of these Arc IDs exist, in one BatchGetItem per 100 IDs. */
export const existingUsers = async (arcIds: string[]): Promise<Set<string>> => {
  const items = await batchGet([...new Set(arcIds)].map(userKeys.profile));
  return new Set(items.map((item) => String(item.arcId)));
};

/**
 * Create a user with its identifier (and API key) items in one transaction. Every item is conditional on not
 * existing, so concurrent creations of the same identifier produce exactly one user; the loser gets a
 * TransactionCanceledException.
 */
export const createUser = async (user: NewUser): Promise<void> => {
  const TableName = table();
  const profile = {
    ...userKeys.profile(user.arcId),
    arcId: user.arcId,
    subject: user.subject,
    identifiers: user.identifiers,
    apiKey: user.apiKey?.apiKey,
    providerWalletAddress: user.providerWalletAddress,
    providerWalletId: user.providerWalletId,
    stats: {},
    createdAt: user.now,
    updatedAt: user.now,
  };
  const ifAbsent = { ConditionExpression: 'attribute_not_exists(pk)' };
  await dynamo().send(
    new TransactWriteCommand({
      TransactItems: [
        { Put: { TableName, Item: profile, ...ifAbsent } },
        ...user.identifiers.map((key) => ({
          Put: {
            TableName,
            Item: { ...userKeys.identifier(key), arcId: user.arcId, createdAt: user.now },
            ...ifAbsent,
          },
        })),
        ...(user.apiKey
          ? [
              {
                Put: {
                  TableName,
                  Item: {
                    ...userKeys.apiKey(user.apiKey.apiKey),
                    arcId: user.arcId,
                    secretCipher: user.apiKey.secretCipher,
                  },
                  ...ifAbsent,
                },
              },
            ]
          : []),
      ],
    }),
  );
};

/** The user and sealed secret behind an API key (one GetItem, strongly consistent so a reset applies at once). */
export const getApiKeyRecord = async (apiKey: string): Promise<ApiKeyRecord | undefined> => {
  const { Item } = await dynamo().send(
    new GetCommand({ TableName: table(), Key: userKeys.apiKey(apiKey), ConsistentRead: true }),
  );
  return Item
    ? {
        arcId: String(Item.arcId),
        secretCipher: String(Item.secretCipher),
        strictSigning: Item.strictSigning === true,
      }
    : undefined;
};

/** Give an existing user its first API key; fails if it already has one. */
export const issueApiKey = async (
  arcId: string,
  apiKey: string,
  secretCipher: string,
  now: string,
): Promise<void> => {
  const TableName = table();
  await dynamo().send(
    new TransactWriteCommand({
      TransactItems: [
        {
          Update: {
            TableName,
            Key: userKeys.profile(arcId),
            UpdateExpression: 'SET apiKey = :k, updatedAt = :now',
            ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(apiKey)',
            ExpressionAttributeValues: { ':k': apiKey, ':now': now },
          },
        },
        {
          Put: {
            TableName,
            Item: { ...userKeys.apiKey(apiKey), arcId, secretCipher },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
      ],
    }),
  );
};

/** Replace the secret behind an API key; the old secret stops working with this write. */
export const replaceSecret = async (apiKey: string, arcId: string, secretCipher: string, now: string) => {
  await dynamo().send(
    new UpdateCommand({
      TableName: table(),
      Key: userKeys.apiKey(apiKey),
      UpdateExpression: 'SET secretCipher = :s, rotatedAt = :now',
      ConditionExpression: 'arcId = :a',
      ExpressionAttributeValues: { ':s': secretCipher, ':now': now, ':a': arcId },
    }),
  );
};

/** Require (or stop requiring) the strict signing form for an API key of this user; the secret is unchanged. */
export const setStrictSigning = async (apiKey: string, arcId: string, strict: boolean, now: string) => {
  await dynamo().send(
    new UpdateCommand({
      TableName: table(),
      Key: userKeys.apiKey(apiKey),
      UpdateExpression: 'SET strictSigning = :strict, strictSigningAt = :now',
      ConditionExpression: 'arcId = :a',
      ExpressionAttributeValues: { ':strict': strict, ':now': now, ':a': arcId },
    }),
  );
};

/** The identifiers and subject of users by Arc ID (absent users left out), eventually consistent, in one BatchGetItem per 100 keys. */
export const userIdentities = async (
  arcIds: string[],
): Promise<Map<string, { subject?: string | undefined; identifiers: string[] }>> => {
  const items = await batchGet([...new Set(arcIds)].map(userKeys.profile));
  return new Map(
    items.map((item) => [
      String(item.arcId),
      {
        subject: typeof item.subject === 'string' ? item.subject : undefined,
        identifiers: Array.isArray(item.identifiers) ? item.identifiers.map(String) : [],
      },
    ]),
  );
};

/**
 * Existing Arc IDs (each mapped to the user it stands for: itself, or the user it was merged into) and identifier
 * owners together, in one BatchGetItem per 100 keys.
 */
export const lookupIdentities = async (arcIds: string[], identifierKeys: string[]) => {
  const keys = [...new Set(arcIds)]
    .map(userKeys.profile)
    .concat([...new Set(identifierKeys)].map(userKeys.identifier));
  const items = await batchGet(keys);
  const users = new Map<string, string>();
  const owners = new Map<string, string>();
  for (const item of items) {
    const pk = String(item.pk);
    // A user merged into another (scripts/merge-identities.ts) stands for that one.
    if (pk.startsWith('USER#'))
      users.set(
        String(item.arcId),
        typeof item.mergedInto === 'string' ? item.mergedInto : String(item.arcId),
      );
    else owners.set(pk.slice('IDENT#'.length), String(item.arcId));
  }
  return { users, owners };
};

/**
 * What the users table knows of a user's embedded wallet: the provider subject it is read with, and its address
 * once learned (`providerWalletAddress`: a public address, mirrored so that a whole board's wallets are one
 * BatchGetItem per 100 players instead of a provider call each; docs/wallets.md). Never a key.
 */
export interface WalletRef {
  subject: string | null;
  address?: string;
}

const toWalletRef = (item: Record<string, unknown>): WalletRef => ({
  subject: typeof item.subject === 'string' ? item.subject : null,
  ...(typeof item.providerWalletAddress === 'string' ? { address: item.providerWalletAddress } : {}),
});

/** One user's wallet reference; undefined for no user (one GetItem). */
export const getWalletRef = async (arcId: string): Promise<WalletRef | undefined> => {
  const { Item } = await dynamo().send(
    new GetCommand({
      TableName: table(),
      Key: userKeys.profile(arcId),
      ProjectionExpression: 'subject, providerWalletAddress',
    }),
  );
  return Item ? toWalletRef(Item) : undefined;
};

/** These users' wallet references (absent users are left out), one BatchGetItem per 100 Arc IDs. */
export const walletRefs = async (arcIds: string[]): Promise<Map<string, WalletRef>> => {
  const items = await batchGet([...new Set(arcIds)].map(userKeys.profile));
  return new Map(items.map((item) => [String(item.arcId), toWalletRef(item)]));
};

/**
 * Mirror the provider's address and id of a user's embedded wallet (neither changes; first write wins), and
 * make the wallet one of the user's identifiers (`sol:<address>`) in the same transaction, so that the wallet
 * resolves to its holder from this table alone. When another user already holds that identifier (a split made
 * before wallets resolved to their holder, merged by scripts/merge-identities.ts) or this one already does, only
 * the address is mirrored.
 */
export const rememberWalletAddress = async (
  arcId: string,
  { address, id }: { address: string; id: string },
): Promise<void> => {
  const TableName = table();
  const key = `sol:${address}`;
  const mirror = {
    TableName,
    Key: userKeys.profile(arcId),
    ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(providerWalletAddress)',
  };
  try {
    await dynamo().send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              ...mirror,
              UpdateExpression:
                'SET providerWalletAddress = :address, providerWalletId = :id, identifiers = list_append(identifiers, :k)',
              ExpressionAttributeValues: { ':address': address, ':id': id, ':k': [key] },
            },
          },
          {
            Put: {
              TableName,
              Item: { ...userKeys.identifier(key), arcId, createdAt: new Date().toISOString() },
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
        ],
      }),
    );
    return;
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
  try {
    await dynamo().send(
      new UpdateCommand({
        ...mirror,
        UpdateExpression: 'SET providerWalletAddress = :address, providerWalletId = :id',
        ExpressionAttributeValues: { ':address': address, ':id': id },
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
};

/** The counters GET /user/me/stats reports; other domains keep them current through the two functions below. */
export type UserStat = 'gamesRegistered' | 'pointsSaved' | 'gameCoinsLaunched';

/**
 * A transaction item that adds `by` to a user's counter, for the caller to commit atomically with its own
 * writes (the user must exist).
 */
export const statIncrementWrite = (arcId: string, stat: UserStat, by = 1) => ({
  Update: {
    TableName: table(),
    Key: userKeys.profile(arcId),
    UpdateExpression: 'SET stats.#stat = if_not_exists(stats.#stat, :zero) + :by',
    ConditionExpression: 'attribute_exists(pk)',
    ExpressionAttributeNames: { '#stat': stat },
    ExpressionAttributeValues: { ':zero': 0, ':by': by },
  },
});

/** Add to a user's counter outside any transaction, best effort (a lost increment only skews a statistic). */
export const addToStat = async (arcId: string, stat: UserStat, by: number): Promise<void> => {
  if (by <= 0) return;
  await dynamo()
    .send(new UpdateCommand(statIncrementWrite(arcId, stat, by).Update))
    .catch(() => undefined);
};

/** Where a user stands with the identity provider's import (see lib/user/importer.ts). */
export interface ImportState {
  subject?: string;
  mergedInto?: string;
  mergedAt?: string;
}

/** These users' import states (absent users are left out), one BatchGetItem per 100 Arc IDs. */
export const importStates = async (arcIds: string[]): Promise<Map<string, ImportState>> => {
  const items = await batchGet([...new Set(arcIds)].map(userKeys.profile));
  const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
  return new Map(
    items.map((item) => {
      const state: ImportState = {};
      const subject = text(item.subject);
      const mergedInto = text(item.mergedInto);
      const mergedAt = text(item.mergedAt);
      if (subject) state.subject = subject;
      if (mergedInto) state.mergedInto = mergedInto;
      if (mergedAt) state.mergedAt = mergedAt;
      return [String(item.arcId), state];
    }),
  );
};

/**
 * Give a user created before its import its provider subject: the subject's identifier item and the profile's
 * `subject` in one transaction, conditional on nobody holding the subject and on the user having none and not
 * being merged. False when a condition failed (the caller reads who holds it).
 */
export const claimSubject = async (arcId: string, subject: string, now: string): Promise<boolean> => {
  const TableName = table();
  try {
    await dynamo().send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Put: {
              TableName,
              Item: { ...userKeys.identifier(subject), arcId, createdAt: now },
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
          {
            Update: {
              TableName,
              Key: userKeys.profile(arcId),
              UpdateExpression:
                'SET subject = :s, identifiers = list_append(identifiers, :k), updatedAt = :now',
              ConditionExpression:
                'attribute_exists(pk) AND attribute_not_exists(subject) AND attribute_not_exists(mergedInto)',
              ExpressionAttributeValues: { ':s': subject, ':k': [subject], ':now': now },
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
