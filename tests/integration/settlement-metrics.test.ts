// The settlement function's metrics, read from its log output (stdout, where Lambda sends it to CloudWatch as
// embedded metric format): what it paid and carried agrees with the payout records.
import '../helpers/enable-metrics.js';
import type { SQSEvent } from 'aws-lambda';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { handler as settleHandler } from '../../functions/settlement/settle-game-days.js';
import { stdoutRecords } from '../helpers/metrics.js';
import { payoutOf, seedDay } from '../helpers/settlement.js';

const total = (value: unknown) => [value ?? []].flat().reduce<number>((sum, v) => sum + Number(v), 0);

afterEach(() => vi.restoreAllMocks());

describe('settlement metrics', () => {
  it('a settlement emits its completion, its lag and the lamports it paid and carried', async () => {
    // A past day (settled by the handler's own clock), its own board.
    const day = new Date(Date.UTC(2021, 0, 1) + Math.floor(Math.random() * 1_500) * 86_400_000)
      .toISOString()
      .slice(0, 10);
    const seeded = await seedDay({ day, playerCount: 4 });
    const event = {
      Records: [{ messageId: 'm1', body: JSON.stringify({ gameId: seeded.gameId, day }) }],
    } as unknown as SQSEvent;
    const records = await stdoutRecords(() => settleHandler(event));
    const emf = records.filter((r) => '_aws' in r);
    const settled = emf.find((r) => r.SettlementsCompleted !== undefined);
    expect(settled).toMatchObject({ service: 'arcadia', SettlementsCompleted: 1 });
    // Days ago: the lag is the time since the day's settlement time, in seconds.
    expect(Number(settled?.SettlementLagSeconds)).toBeGreaterThan(86_400);

    const members = [...seeded.creators, ...seeded.players];
    const lines = (await Promise.all(members.map((m) => payoutOf(seeded.gameId, day, m.arcId)))).filter(
      (line) => line !== undefined,
    );
    const paid = lines.filter((l) => l.status === 'confirmed').reduce((sum, l) => sum + Number(l.send), 0);
    const carried = lines.filter((l) => l.status === 'carried').reduce((sum, l) => sum + Number(l.due), 0);
    expect(paid).toBeGreaterThan(0);
    expect(carried).toBeGreaterThan(0); // the unfunded players' small payouts
    expect(total(settled?.LamportsPaid)).toBe(paid);
    expect(total(settled?.LamportsCarried)).toBe(carried);
  }, 120_000);
});
