import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { requireSetting } from '../core/config.js';

// Only the functions that open API secrets or session tokens are given this key (serverless.yml); custodial keys
// are sealed under another one, held in Secrets Manager (./vault-keys.ts).
let cached: Buffer | undefined;
const key = () => {
  cached ??= Buffer.from(requireSetting('SECRETS_ENCRYPTION_KEY'), 'base64');
  return cached;
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
