// The secrets key: it seals API and webhook secrets at rest and derives the keys of session tokens, grants' tokens
// and history cursors. It lives in Secrets Manager (serverless.yml SecretsKeySecret, put there by the deployer:
// README, Deploying), never in a function's environment, where anyone allowed lambda:GetFunctionConfiguration
// reads it. Only the functions that bundle this module get the secret's id (SECRETS_KEY_SECRET_ID) and the right
// to read it (infra/access.ts). The readers below stay synchronous: the key is read once per container, before
// the handler's body runs (registered with lib/core/cold-start.ts, which the function wrappers await). Custodial
// keys are sealed under another key (./vault-keys.ts).
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { loadAtColdStart } from '../core/cold-start.js';
import { requireSetting } from '../core/config.js';
import { readSecretString } from './secret-value.js';

let loaded: Buffer | undefined;
let loading: Promise<void> | undefined;

/** The secret's text as the key: 32 bytes, base64 (`openssl rand -base64 32`, the format the key always had). */
const fetchKey = async (secretId: string): Promise<Buffer> => {
  let text: string;
  try {
    text = (await readSecretString(secretId)).trim();
  } catch (error) {
    // A secret without a value (a stage whose key was never put) answers ResourceNotFoundException.
    throw new Error(
      `Cannot read the secrets key from ${secretId}: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
  const key = Buffer.from(text, 'base64');
  // Named, never shown: the value goes to no log.
  if (key.length !== 32) throw new Error(`The secret ${secretId} must hold 32 bytes, base64-encoded`);
  return key;
};

/** Reads the key from Secrets Manager once per container; a failed read is retried by the next invocation. */
export const loadSecretsKey = (): Promise<void> => {
  loading ??= fetchKey(requireSetting('SECRETS_KEY_SECRET_ID')).then(
    (key) => {
      loaded = key;
    },
    (error: unknown) => {
      loading = undefined;
      throw error;
    },
  );
  return loading;
};
loadAtColdStart(loadSecretsKey);

const key = (): Buffer => {
  if (!loaded)
    throw new Error(
      'The secrets key is not loaded: a function wrapper (or the caller) awaits loadSecretsKey() first',
    );
  return loaded;
};

const derived = new Map<string, Buffer>();
/**
 * A 32-byte key for one purpose (`info`, e.g. 'arcadia play session token v1'), derived from this key by HKDF-SHA256,
 * so that a deployment configures one secret, not one per purpose.
 */
export const derivedKey = (info: string): Buffer => {
  let found = derived.get(info);
  if (!found) {
    found = Buffer.from(hkdfSync('sha256', key(), Buffer.alloc(0), info, 32));
    derived.set(info, found);
  }
  return found;
};

/** Encrypt a secret for storage at rest: AES-256-GCM, `v1.<iv>.<tag>.<ciphertext>` in base64url. */
export const sealSecret = (plaintext: string | Buffer): string => {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key(), iv);
  const data = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return ['v1', iv, cipher.getAuthTag(), data]
    .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
    .join('.');
};

/** Decrypt a value sealed by `sealSecret`; throws when it was tampered with. */
export const openSecret = (sealed: string): Buffer => {
  const [version, iv, tag, data] = sealed.split('.');
  if (version !== 'v1' || !iv || !tag || data === undefined) throw new Error('Unrecognised sealed secret');
  const decipher = createDecipheriv('aes-256-gcm', key(), Buffer.from(iv, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]);
};
