/**
 * SnapshotsTable keys of airdrop snapshots and claims.
 * Access patterns:
 * - current snapshot summary of a game coin: pk=SNAPSHOT#<coinMint>  sk=SUMMARY
 *   (points at the immutable S3 objects of one version; switched by a conditional Put: newer slot and version
 *   only, so an older or concurrent build can never replace a newer one)
 * - claim n of a wallet:                     pk=SNAPSHOT#<coinMint>  sk=CLAIM#<wallet> (n = 0), CLAIM#<wallet>#<n>
 *   (the platform's record, written before the vault's signature leaves it: amount, the signed transaction, its
 *   expiry; pending → landed or expired by conditional updates; an expired one, or a pending one a public build
 *   recorded, is replaced by attempt + 1)
 * - a coin's emission state:                 pk=EMISSION#<coinMint>  sk=STATE       (emitted total, last day)
 * - one emission day (intent, then settled): pk=EMISSION#<coinMint>  sk=DAY#<yyyy-mm-dd>
 * - a day's applied allocation chunk:        pk=EMISSION#<coinMint>  sk=DAY#<yyyy-mm-dd>#CHUNK#<i>
 * - a wallet's cumulative emission of a coin: pk=WALLET#<wallet>     sk=COIN#<coinMint>
 *   (Query by pk: every coin a wallet has an allocation of)
 * S3 (SnapshotsBucket): snapshots/<coinMint>/v<version>-<root[0..16]>/{holders.bin,index.bin,manifest.json}
 * (lib/snapshots/layout.ts). The root in the prefix keeps two concurrent builds of one version apart.
 */
export const snapshotKeys = {
  summary: (coinMint: string) => ({ pk: `SNAPSHOT#${coinMint}`, sk: 'SUMMARY' }),
  claim: (coinMint: string, wallet: string, claimNumber = 0) => ({
    pk: `SNAPSHOT#${coinMint}`,
    sk: claimNumber === 0 ? `CLAIM#${wallet}` : `CLAIM#${wallet}#${claimNumber}`,
  }),
  emissionState: (coinMint: string) => ({ pk: `EMISSION#${coinMint}`, sk: 'STATE' }),
  emissionDay: (coinMint: string, day: string) => ({ pk: `EMISSION#${coinMint}`, sk: `DAY#${day}` }),
  emissionChunk: (coinMint: string, day: string, chunk: number) => ({
    pk: `EMISSION#${coinMint}`,
    sk: `DAY#${day}#CHUNK#${chunk}`,
  }),
  walletEmission: (wallet: string, coinMint: string) => ({ pk: `WALLET#${wallet}`, sk: `COIN#${coinMint}` }),
  objectPrefix: (coinMint: string, version: number, rootHex: string) =>
    `snapshots/${coinMint}/v${version}-${rootHex.slice(0, 16)}/`,
};
