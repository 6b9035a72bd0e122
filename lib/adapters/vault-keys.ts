// The platform's custodial keys at rest: game pool vaults, launch vaults and coin mints (docs/wallets.md,
// "Custodial keys"). Each 64-byte secret is sealed with AES-256-GCM under the vault sealing key, which lives in
// Secrets Manager (serverless.yml VaultKeySecret) and reaches only the functions that create or sign for vaults:
// they alone get its id (VAULT_KEY_SECRET_ID) and the right to read it. The key an HMAC secret or a session token
// uses (the secrets key, ./secrets.ts) opens none of these.
//
// The associated data binds a sealed key to its address (`arcadia-<kind>:<address>`): copied onto another record
// it no longer opens, and every opened key is checked to sign for the address it was opened for.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { type KeyPairSigner, keypairFromSecret } from '../chain/index.js';
import { requireSetting } from '../core/config.js';
import { readSecretString } from './secret-value.js';

/** What a custodial key signs for: a vault (a game's pool, a coin's launch vault) or a coin's mint. */
export type CustodialKeyKind = 'vault' | 'mint';

/** A sealed custodial key that cannot be used: sealed for another address, altered, or in a retired format. */
export class CustodialKeyError extends Error {
  override readonly name = 'CustodialKeyError';
}

/** The sealed format: `v2.<iv>.<tag>.<ciphertext>` (base64url), with the address as associated data. */
export const SEALED_KEY_VERSION = 'v2';
/** A generated secret is 64 characters; one set by hand must not be weaker than the 32-byte key it derives. */
const MIN_SECRET_LENGTH = 32;

let sealingKey: Promise<Buffer> | undefined;

const fetchSealingKey = async (): Promise<Buffer> => {
  const text = await readSecretString(requireSetting('VAULT_KEY_SECRET_ID'));
  if (text.length < MIN_SECRET_LENGTH)
    throw new Error(`The vault sealing secret must be at least ${MIN_SECRET_LENGTH} characters`);
  // The secret is text (GenerateSecretString); HKDF turns it into the AES key, labelled for this one use.
  return Buffer.from(hkdfSync('sha256', text, '', 'arcadia-custodial-keys-v2', 32));
};

/** The sealing key, read from Secrets Manager once per container (a failed read is retried on the next use). */
const key = (): Promise<Buffer> => {
  sealingKey ??= fetchSealingKey().catch((error: unknown) => {
    sealingKey = undefined;
    throw error;
  });
  return sealingKey;
};

const associatedData = (kind: CustodialKeyKind, address: string) =>
  Buffer.from(`arcadia-${kind}:${address}`, 'utf8');

/** Seal the 64-byte secret of the keypair at `address` for storage on its record. */
export const sealCustodialKey = async (
  kind: CustodialKeyKind,
  address: string,
  secretKey: Uint8Array,
): Promise<string> => {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', await key(), iv);
  cipher.setAAD(associatedData(kind, address));
  const data = Buffer.concat([cipher.update(secretKey), cipher.final()]);
  return [
    SEALED_KEY_VERSION,
    ...[iv, cipher.getAuthTag(), data].map((part) => part.toString('base64url')),
  ].join('.');
};

/** The 64 bytes sealed for `address`; throws a CustodialKeyError when they were sealed for anything else. */
export const openCustodialSecret = async (
  kind: CustodialKeyKind,
  address: string,
  sealed: string,
): Promise<Buffer> => {
  const [version, iv, tag, data] = sealed.split('.');
  if (version === 'v1')
    throw new CustodialKeyError(
      `The ${kind} key of ${address} is sealed in the retired v1 format: run \`npm run migrate-vault-keys\``,
    );
  if (version !== SEALED_KEY_VERSION || !iv || !tag || data === undefined)
    throw new CustodialKeyError(`The ${kind} key of ${address} is not a sealed key`);
  const decipher = createDecipheriv('aes-256-gcm', await key(), Buffer.from(iv, 'base64url'));
  decipher.setAAD(associatedData(kind, address));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  try {
    return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]);
  } catch {
    throw new CustodialKeyError(
      `The sealed ${kind} key on the record of ${address} does not open: it was sealed for another address or altered`,
    );
  }
};

/**
 * The signer of the custodial keypair at `address`, opened from its sealed key; refused unless the opened secret
 * signs for that address (its public half is checked against its private half, then against the address).
 */
export const openCustodialKey = async (
  kind: CustodialKeyKind,
  address: string,
  sealed: string,
): Promise<KeyPairSigner> => {
  const secret = await openCustodialSecret(kind, address, sealed);
  let signer: KeyPairSigner;
  try {
    signer = await keypairFromSecret(new Uint8Array(secret));
  } catch {
    throw new CustodialKeyError(`The ${kind} key sealed for ${address} is not a valid keypair`);
  } finally {
    secret.fill(0);
  }
  if (signer.address !== address)
    throw new CustodialKeyError(`The ${kind} key sealed for ${address} signs for ${signer.address}`);
  return signer;
};
