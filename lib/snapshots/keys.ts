/**
 * SnapshotsTable keys of airdrop snapshots and claims.
 * Access patterns:
 * - current snapshot summary of a game coin: pk=SNAPSHOT#<coinMint>  sk=SUMMARY
 *   (points at the immutable S3 objects of one version; switched by a conditional Put: newer slot and version
 *   only, so an older or concurrent build can never replace a newer one)
 * - observed claim of a wallet:              pk=SNAPSHOT#<coinMint>  sk=CLAIM#<wallet>
 *   (written once, attribute_not_exists, the first time the claim receipt is seen on chain: keeps the claim time)
 * S3 (SnapshotsBucket): snapshots/<coinMint>/v<version>-<root[0..16]>/{holders.bin,index.bin,manifest.json}
 * (lib/snapshots/layout.ts). The root in the prefix keeps two concurrent builds of one version apart.
 */
export const snapshotKeys = {
  summary: (coinMint: string) => ({ pk: `SNAPSHOT#${coinMint}`, sk: 'SUMMARY' }),
  claim: (coinMint: string, wallet: string) => ({ pk: `SNAPSHOT#${coinMint}`, sk: `CLAIM#${wallet}` }),
  objectPrefix: (coinMint: string, version: number, rootHex: string) =>
    `snapshots/${coinMint}/v${version}-${rootHex.slice(0, 16)}/`,
};
