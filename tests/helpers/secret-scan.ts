// Scans every table of the local stack for Solana secret keys: what "the platform keeps no user key" means,
// checked on the data rather than on the code. A value is a key when, as stored or once opened with the secrets
// key (sealSecret) or as a custodial key (v2, with its record's address), and as text in base64, base58 or hex, it is 64 bytes whose second half is the ed25519 public
// key of its first half, or 32 bytes whose public key is a wallet we know.
import { createPrivateKey, createPublicKey } from 'node:crypto';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import bs58 from 'bs58';
import { openSecret } from '../../lib/adapters/secrets.js';
import { type CustodialKeyKind, openCustodialSecret } from '../../lib/adapters/vault-keys.js';

/** The platform's own custodial keys (launch mint and vault, rewards pool vaults): allowed, and checked apart. */
export const PLATFORM_KEY_ATTRIBUTES = new Set(['sealedMintKey', 'sealedVaultKey', 'vaultSealedKey']);

const PKCS8_ED25519 = Buffer.from('302e020100300506032b657004220420', 'hex');

/** The base58 address of an ed25519 seed. */
export const addressOfSeed = (seed: Buffer): string =>
  bs58.encode(
    Buffer.from(
      createPublicKey(
        createPrivateKey({ key: Buffer.concat([PKCS8_ED25519, seed]), format: 'der', type: 'pkcs8' }),
      ).export({ format: 'jwk' }).x ?? '',
      'base64url',
    ),
  );

/** Longer text cannot hold one key in any of these encodings (a sealed 64-byte key is ~130 characters). */
const MAX_KEY_TEXT = 512;

const decodings = (text: string): Buffer[] => {
  const out: Buffer[] = [];
  if (text.length > MAX_KEY_TEXT) return out;
  try {
    out.push(openSecret(text));
  } catch {
    // not sealed with the secrets key
  }
  if (/^[0-9a-f]+$/i.test(text) && text.length % 2 === 0) out.push(Buffer.from(text, 'hex'));
  if (/^[A-Za-z0-9+/_-]+={0,2}$/.test(text)) out.push(Buffer.from(text, 'base64'));
  const base58 = bs58.decodeUnsafe(text);
  if (base58) out.push(Buffer.from(base58));
  return out;
};

export interface FoundKey {
  table: string;
  pk: string;
  attribute: string;
  /** The item's `subject`, when it has one (a user profile). */
  subject?: string;
  /** The address the key signs for. */
  address: string;
}

/** The address a byte string is the secret key of, if it is one (see the file header). */
const keyAddress = (bytes: Buffer, knownWallets: Set<string>): string | undefined => {
  if (bytes.length === 64) {
    const address = addressOfSeed(bytes.subarray(0, 32));
    return bs58.encode(bytes.subarray(32)) === address ? address : undefined;
  }
  if (bytes.length === 32) {
    const address = addressOfSeed(bytes);
    return knownWallets.has(address) ? address : undefined;
  }
  return undefined;
};

const walk = (value: unknown, path: string, visit: (path: string, text: Buffer | string) => void): void => {
  if (typeof value === 'string') visit(path, value);
  else if (value instanceof Uint8Array) visit(path, Buffer.from(value));
  else if (Array.isArray(value) || value instanceof Set)
    for (const [i, v] of [...value].entries()) walk(v, `${path}[${i}]`, visit);
  else if (value && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) walk(v, path ? `${path}.${k}` : k, visit);
};

/** Custodial keys (v2) open only with the address their record names (associated data): the attribute says which. */
const CUSTODIAL: Record<string, { kind: CustodialKeyKind; address: string }> = {
  sealedMintKey: { kind: 'mint', address: 'coinMint' },
  sealedVaultKey: { kind: 'vault', address: 'vaultAddress' },
  vaultSealedKey: { kind: 'vault', address: 'vaultAddress' },
};

const custodialDecoding = async (item: Record<string, unknown>, attribute: string, text: string) => {
  const custodial = CUSTODIAL[attribute];
  const address = custodial && item[custodial.address];
  if (!custodial || typeof address !== 'string' || !text.startsWith('v2.')) return [];
  return [await openCustodialSecret(custodial.kind, address, text).catch(() => undefined)].filter(
    (b): b is Buffer => b !== undefined,
  );
};

const keysInItem = async (
  table: string,
  item: Record<string, unknown>,
  known: Set<string>,
): Promise<FoundKey[]> => {
  const found: FoundKey[] = [];
  const values: Array<[string, Buffer | string]> = [];
  walk(item, '', (attribute, value) => values.push([attribute, value]));
  for (const [attribute, value] of values) {
    const custodial = typeof value === 'string' ? await custodialDecoding(item, attribute, value) : [];
    for (const bytes of typeof value === 'string' ? [...custodial, ...decodings(value)] : [value]) {
      const address = keyAddress(bytes, known);
      if (!address) continue;
      found.push({
        table,
        pk: String(item.pk),
        attribute,
        address,
        ...(typeof item.subject === 'string' ? { subject: item.subject } : {}),
      });
    }
  }
  return found;
};

/** Every secret key stored in any table of the local DynamoDB (ListTables, then a full Scan of each). */
export const scanTablesForKeys = async (knownWallets: Iterable<string>): Promise<FoundKey[]> => {
  const known = new Set(knownWallets);
  const client = DynamoDBDocumentClient.from(new DynamoDBClient({}));
  const found: FoundKey[] = [];
  const tables: string[] = [];
  let start: string | undefined;
  do {
    const page = await client.send(new ListTablesCommand({ ExclusiveStartTableName: start }));
    tables.push(...(page.TableNames ?? []));
    start = page.LastEvaluatedTableName;
  } while (start);
  for (const table of tables) {
    let key: Record<string, unknown> | undefined;
    do {
      const page = await client.send(new ScanCommand({ TableName: table, ExclusiveStartKey: key }));
      for (const item of page.Items ?? []) found.push(...(await keysInItem(table, item, known)));
      key = page.LastEvaluatedKey;
    } while (key);
  }
  return found;
};
