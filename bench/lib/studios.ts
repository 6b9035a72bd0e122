// The monthly AWS bill of three example studios, from the per-operation costs the cost bench measured, beside the
// same workload with its boards on a sorted set (ElastiCache Serverless for Valkey) instead of the rank index.
// The workload model is stated here, in one place, and printed with the bills.
import { HOURS_PER_MONTH, RATES } from '../rates.js';
import { renderTable } from './table.js';

/** What one operation costs on AWS (dollars): all of it, its DynamoDB part, and the rank index's writes. */
export interface OperationCost {
  aws: number;
  dynamo: number;
  rankIndex: number;
}

/** Share of the peak rate in each UTC hour: quiet nights, an evening peak (a mean of ~0.55 of the peak). */
export const DAILY_CURVE = [
  0.3, 0.2, 0.15, 0.15, 0.15, 0.2, 0.3, 0.4, 0.5, 0.55, 0.6, 0.6, 0.65, 0.65, 0.7, 0.75, 0.8, 0.9, 1, 1, 0.95,
  0.8, 0.6, 0.45,
];

export const MODEL = {
  peaks: [100, 1_000, 10_000],
  /** Score updates a player makes in a day (one every 10 s over 30 minutes of play). */
  updatesPerPlayerDay: 180,
  /** Of a day's players, those never seen before (their first update is a new player's save). */
  newPlayerShare: 0.05,
  /** Reads per score update. */
  readsPerUpdate: {
    'top 10': 0.1,
    "a player's rank with neighbours": 0.05,
    'a page deep in the board': 0.005,
    'game listing page': 0.01,
  } as Record<string, number>,
  purchasesPerPlayerDay: 0.01,
  /** DynamoDB storage: ~1 KB per player and day (totals, session, index entries), kept 90 days. */
  storageKbPerPlayerDay: 1,
  retainedDays: 90,
  // The sorted set: each update a ZINCRBY on the day's and the all-time board (1 ECPU each, under 1 KB); a top 10
  // or a rank with neighbours 1-2 ECPUs, a page of 50 ~3 (1 ECPU per KB transferred).
  boardsPerUpdate: 2,
  ecpuPerRead: { 'top 10': 1, "a player's rank with neighbours": 2, 'a page deep in the board': 3 } as Record<
    string,
    number
  >,
  /** ~100 bytes a member (a UUID, its score, skiplist and hash overhead); the all-time board holds 3× a day's players. */
  sortedSetBytesPerMember: 100,
  allTimeMembersPerPlayerDay: 3,
  /** NAT gateways (one per AZ, two AZs) for the Lambdas in the VPC, and what they carry (chain, IdP, feeds). */
  natGateways: 2,
  natGbPerMonth: 50,
};

const DAYS_PER_MONTH = HOURS_PER_MONTH / 24;
const usd = (n: number) => `$${Math.round(n).toLocaleString('en-US')}`;

/** The rows measured on a game whose boards are at their widest, which the bills use where measured. */
export const WIDEST = {
  knownSave: 'batch save, per player (known player), widest board',
  top: 'top 10, widest board',
  rank: "a player's rank with neighbours, widest board",
} as const;

export const studioBills = (ops: Map<string, OperationCost>): string => {
  // A studio's boards are wide (tens of thousands of players a day at 100 updates a second): its known-player
  // saves and its board reads are priced from the widest board's rows when the run has them.
  const widest: Record<string, string> = {
    'batch save, per player (known player)': WIDEST.knownSave,
    'top 10': WIDEST.top,
    "a player's rank with neighbours": WIDEST.rank,
  };
  const op = (name: string): OperationCost =>
    ops.get(widest[name] ?? '') ?? ops.get(name) ?? { aws: 0, dynamo: 0, rankIndex: 0 };
  const known = op('batch save, per player (known player)');
  const fresh = op('batch save, per player (new player)');
  const bill = (peak: number) => {
    const updates = peak * 3600 * DAILY_CURVE.reduce((s, f) => s + f, 0) * DAYS_PER_MONTH;
    const playerDays = updates / MODEL.updatesPerPlayerDay;
    const newPlayers = playerDays * MODEL.newPlayerShare;
    const saves = (updates - newPlayers) * known.aws + newPlayers * fresh.aws;
    const rankWrites = (updates - newPlayers) * known.rankIndex + newPlayers * fresh.rankIndex;
    const readEntries = Object.entries(MODEL.readsPerUpdate);
    const reads = readEntries.reduce((s, [name, per]) => s + updates * per * op(name).aws, 0);
    const settlement = playerDays * op('settlement, per player of the day').aws;
    const purchases = playerDays * MODEL.purchasesPerPlayerDay * op('multiplier purchase').aws;
    const dailyPlayers = playerDays / DAYS_PER_MONTH;
    const storage =
      ((dailyPlayers * MODEL.storageKbPerPlayerDay * MODEL.retainedDays) / 1024 / 1024) *
      RATES.dynamodb.perGbMonth;
    const arcadia = saves + reads + settlement + purchases + storage;
    // The same workload with its boards on a sorted set: no rank-index writes, ECPUs and storage instead.
    const v = RATES.elastiCacheServerlessValkey;
    const ecpus =
      updates * MODEL.boardsPerUpdate +
      readEntries.reduce((s, [name, per]) => s + updates * per * (MODEL.ecpuPerRead[name] ?? 0), 0);
    const members = dailyPlayers * (1 + MODEL.allTimeMembersPerPlayerDay);
    const gb = Math.max(v.minimumGb, (members * MODEL.sortedSetBytesPerMember) / 1e9);
    const valkey = ecpus * v.perEcpu + gb * v.perGbHour * HOURS_PER_MONTH;
    const nat =
      MODEL.natGateways * RATES.vpc.natGatewayPerHour * HOURS_PER_MONTH +
      MODEL.natGbPerMonth * RATES.vpc.natGatewayPerGb;
    const sortedSet = arcadia - rankWrites + valkey + nat;
    return {
      updates,
      dailyPlayers,
      arcadia,
      rankWrites,
      saves,
      reads,
      settlement,
      purchases,
      storage,
      valkey,
      nat,
      sortedSet,
    };
  };
  // The peak at which both stacks cost the same: the sorted set's fixed costs against the rank index's writes.
  const perPeak = bill(1);
  const fixed = bill(0);
  const slope = perPeak.sortedSet - fixed.sortedSet - (perPeak.arcadia - fixed.arcadia);
  const breakEven = slope < 0 ? (fixed.sortedSet - fixed.arcadia) / -slope : Number.POSITIVE_INFINITY;
  const rows = MODEL.peaks.map((peak) => {
    const {
      updates,
      dailyPlayers,
      arcadia,
      rankWrites,
      saves,
      reads,
      settlement,
      purchases,
      storage,
      valkey,
      nat,
      sortedSet,
    } = bill(peak);
    return [
      `${peak.toLocaleString('en-US')} / s`,
      `${(updates / 1e6).toFixed(0)} M`,
      Math.round(dailyPlayers).toLocaleString('en-US'),
      usd(arcadia),
      usd(rankWrites),
      usd(saves),
      usd(reads + settlement + purchases + storage),
      usd(arcadia - rankWrites),
      usd(valkey),
      usd(nat),
      usd(sortedSet),
      sortedSet < arcadia ? 'sorted set' : 'DynamoDB',
    ];
  });
  return [
    `\nMonthly AWS bill (${RATES.region}, rates of ${RATES.asOf}); score updates follow DAILY_CURVE (mean ` +
      `${(DAILY_CURVE.reduce((s, f) => s + f, 0) / 24).toFixed(2)} of the peak), the rest of the workload is MODEL ` +
      '(bench/lib/studios.ts). Chain fees are the payer’s, not in the bill.\n',
    renderTable(
      [
        'peak updates',
        'updates a month',
        'players a day',
        'DynamoDB stack: total',
        'of which rank-index writes',
        'saves',
        'reads, settlement, purchases, storage',
        'without the rank index',
        '+ Valkey (ECPU + storage)',
        '+ NAT for VPC Lambdas',
        'sorted-set stack: total',
        'cheaper',
      ],
      rows,
    ),
    Number.isFinite(breakEven)
      ? `\nBoth stacks cost the same at a peak of ~${breakEven.toFixed(1)} score updates a second (the sorted set's ` +
        `fixed $${fixed.sortedSet.toFixed(0)} a month of NAT and minimum storage against the rank index's writes); ` +
        'below it DynamoDB alone is cheaper.'
      : '\nThe rank index costs less than the sorted set at every peak.',
  ].join('\n');
};
