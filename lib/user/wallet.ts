import { generateKeyPairSync } from 'node:crypto';
import bs58 from 'bs58';
import { sealSecret } from '../adapters/secrets.js';

export interface EmbeddedWallet {
  /** Solana address (base58 ed25519 public key). */
  address: string;
  /** The 64-byte Solana secret key (seed ‖ public key), sealed with the secrets key. */
  sealedSecretKey: string;
}

/** Create a local embedded wallet: an ed25519 keypair whose secret never leaves storage unencrypted. */
export const createEmbeddedWallet = (): EmbeddedWallet => {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const pub = Buffer.from(publicKey.export({ format: 'jwk' }).x ?? '', 'base64url');
  const seed = Buffer.from(privateKey.export({ format: 'jwk' }).d ?? '', 'base64url');
  return { address: bs58.encode(pub), sealedSecretKey: sealSecret(Buffer.concat([seed, pub])) };
};
