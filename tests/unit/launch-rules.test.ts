// The launch rules that depend only on the clock and the game's coin, the job's public shapes, and how failures
// are explained to users. Pure functions, no stack.
import { describe, expect, it } from 'vitest';
import { AppError } from '../../lib/core/errors.js';
import type { CoinSummary } from '../../lib/games/model.js';
import { launchJobSchema } from '../../lib/launcher/contracts.js';
import { describeFailure } from '../../lib/launcher/failures.js';
import type { JobRecord } from '../../lib/launcher/model.js';
import {
  assertBalance,
  assertEmissionDays,
  assertMayLaunch,
  coinPhase,
  emissionWindow,
} from '../../lib/launcher/rules.js';
import { toJobView } from '../../lib/launcher/service.js';

const HOUR = 3_600_000;
const END = Date.parse('2030-01-10T00:00:00.000Z');
const coin = (overrides: Partial<CoinSummary> = {}): CoinSummary => ({
  coinMint: 'So11111111111111111111111111111111111111112',
  gameCoinSymbol: 'SPAINV',
  emissionDays: 7,
  status: 'active',
  emissionStartAt: new Date(END - 7 * 24 * HOUR).toISOString(),
  emissionEndAt: new Date(END).toISOString(),
  ...overrides,
});
const at = (offsetMs: number) => new Date(END + offsetMs);
const codeOf = (fn: () => void) => {
  try {
    fn();
    return 'ok';
  } catch (error) {
    return error instanceof AppError ? error.code : String(error);
  }
};

/** The coin once its last emission day settled at END (emissionEndAt is then when it ended). */
const ended = () => coin({ status: 'ended' });

describe('coin phases and who may launch', () => {
  it('is open without a coin, and active while the coin is active, whatever the clock says', () => {
    expect(coinPhase(null, at(0)).phase).toBe('open');
    expect(coinPhase(coin(), at(-1)).phase).toBe('active');
    expect(coinPhase(coin({ emissionEndAt: null }), at(100 * HOUR)).phase).toBe('active');
    // Past the planned end but its last day not settled: the emission is still running.
    expect(coinPhase(coin(), at(100 * HOUR)).phase).toBe('active');
    expect(coinPhase(ended(), at(0)).phase).toBe('grace');
  });

  it('keeps the grace period for exactly 48 hours after the coin ended', () => {
    expect(coinPhase(ended(), at(48 * HOUR - 60_000)).phase).toBe('grace'); // 47:59
    expect(coinPhase(ended(), at(48 * HOUR - 1)).phase).toBe('grace');
    expect(coinPhase(ended(), at(48 * HOUR)).phase).toBe('open');
    expect(coinPhase(ended(), at(48 * HOUR + 60_000)).phase).toBe('open'); // 48:01
  });

  it('answers ACTIVE_GAME_COIN to anyone during the emission, and GRACE_PERIOD_RESTRICTED to others after it', () => {
    for (const creator of [true, false]) {
      expect(codeOf(() => assertMayLaunch(coin(), creator, at(-HOUR)))).toBe('ACTIVE_GAME_COIN');
      expect(codeOf(() => assertMayLaunch(coin(), creator, at(HOUR)))).toBe('ACTIVE_GAME_COIN');
    }
    expect(codeOf(() => assertMayLaunch(ended(), true, at(47 * HOUR + 59 * 60_000)))).toBe('ok');
    expect(codeOf(() => assertMayLaunch(ended(), false, at(47 * HOUR + 59 * 60_000)))).toBe(
      'GRACE_PERIOD_RESTRICTED',
    );
    expect(codeOf(() => assertMayLaunch(ended(), false, at(48 * HOUR + 60_000)))).toBe('ok');
    expect(codeOf(() => assertMayLaunch(null, false, at(0)))).toBe('ok');
  });

  it('names the end of the grace period in the 403', () => {
    expect(() => assertMayLaunch(ended(), false, at(HOUR))).toThrow(/until 2030-01-12T00:00:00.000Z/);
  });
});

describe('launch inputs and the fee reserve', () => {
  it('accepts emissionDays 7 and 30 only, listing them', () => {
    expect(codeOf(() => assertEmissionDays(7))).toBe('ok');
    expect(codeOf(() => assertEmissionDays(30))).toBe('ok');
    expect(() => assertEmissionDays(14)).toThrow('emissionDays must be one of the allowed values: 7, 30');
  });

  it('needs 0.07 SOL plus the buy', () => {
    expect(codeOf(() => assertBalance(70_000_000n, 0n, 'w'))).toBe('ok');
    expect(codeOf(() => assertBalance(69_999_999n, 0n, 'w'))).toBe('INSUFFICIENT_BALANCE');
    expect(codeOf(() => assertBalance(170_000_000n, 100_000_000n, 'w'))).toBe('ok');
    expect(() => assertBalance(100_000_000n, 50_000_000n, 'w')).toThrow(
      'holds 0.1 SOL; this launch needs at least 0.12 SOL (0.07 SOL for fees and rent plus the initial buy of 0.05 SOL)',
    );
  });

  it('emits over emissionDays UTC days from the launch day', () => {
    expect(emissionWindow(new Date('2030-01-01T12:00:00Z'), 30)).toEqual({
      emissionStartAt: '2030-01-01T12:00:00.000Z',
      emissionEndAt: '2030-01-31T00:00:00.000Z', // the midnight after the 30th UTC day from the launch day
    });
  });
});

const job = (overrides: Partial<JobRecord>): JobRecord => ({
  jobId: '0d9e4f0a-3b7c-4c1e-9a55-7f3b2d1c6e8a',
  gameId: '6f1d3c1e-2a4b-4c5d-8e9f-0a1b2c3d4e5f',
  userId: '1b9d6bcd-bbfd-4b2d-9b5d-ab8dfbbd4bed',
  status: 'waiting',
  progress: 0,
  stage: 'queued',
  message: 'Launch queued',
  error: null,
  emissionDays: 7,
  buyAmount: null,
  gameCoinSymbol: 'SPAINV',
  symbolSource: 'generated',
  coinName: 'Space Invaders',
  coinUri: 'https://api.example/games/id/x',
  coinMint: 'MintAddress1111111111111111111111111111111',
  vaultAddress: null,
  sealedMintKey: 'v1.secret',
  sealedVaultKey: 'v1.secret',
  mintTx: null,
  supplyTx: null,
  buyTx: null,
  tokensBought: null,
  bundleTx: null,
  executionArn: null,
  deadlineAt: null,
  createdAt: '2030-01-01T00:00:00.000Z',
  updatedAt: '2030-01-01T00:00:00.000Z',
  completedAt: null,
  ...overrides,
});

describe('the three job shapes of GET /token-launcher/launch/{jobId}', () => {
  it('shows progress while in progress, and nothing private', () => {
    const view = toJobView(job({ status: 'active', progress: 50, message: 'Coin minted' }));
    expect(view).toEqual({
      jobId: job({}).jobId,
      gameId: job({}).gameId,
      status: 'active',
      progress: 50,
      message: 'Coin minted',
    });
    expect(launchJobSchema.safeParse(view).success).toBe(true);
  });

  it('adds bundleTx and gtokenAddress when completed', () => {
    const view = toJobView(
      job({
        status: 'completed',
        progress: 100,
        bundleTx: 'sig',
        coinMint: 'mint',
        message: 'Launched',
      }),
    );
    expect(view).toMatchObject({
      status: 'completed',
      progress: 100,
      bundleTx: 'sig',
      gtokenAddress: 'mint',
    });
    expect(launchJobSchema.safeParse(view).success).toBe(true);
  });

  it('adds the error when failed, keeping the progress reached', () => {
    const view = toJobView(job({ status: 'failed', progress: 50, error: 'Launch failed while …' }));
    expect(view).toMatchObject({ status: 'failed', progress: 50, error: 'Launch failed while …' });
    expect(launchJobSchema.safeParse(view).success).toBe(true);
  });
});

describe('failure explanations', () => {
  const lambdaCause = (errorType: string, errorMessage: string) =>
    JSON.stringify({
      errorType,
      errorMessage,
      trace: [`${errorType}: ${errorMessage}`, '    at secret/path.ts'],
    });

  it('shows messages of chain and domain errors, by stage', () => {
    expect(
      describeFailure('mint', {
        Error: 'CoinLaunchError',
        Cause: lambdaCause('CoinLaunchError', 'Mint taken'),
      }),
    ).toBe('Launch failed while minting the coin: Mint taken');
    expect(
      describeFailure('buy', { Error: 'ChainError', Cause: 'Transaction x failed: {"Custom":17}' }),
    ).toBe('Launch failed while making the initial buy: Transaction x failed: {"Custom":17}');
  });

  it('says when the wallet ran out of SOL', () => {
    expect(
      describeFailure('mint', {
        Error: 'ChainError',
        Cause: lambdaCause('ChainError', 'Transfer: insufficient lamports 10, need 2000'),
      }),
    ).toMatch(/^Launch failed while minting the coin: your embedded wallet does not hold enough SOL/);
  });

  it('explains exhausted retries, timeouts and service errors without internals', () => {
    expect(describeFailure('reserve', { Error: 'ChainTransientError', Cause: 'RPC answered HTTP 503' })).toBe(
      'Launch failed while reserving the coin address: the blockchain network stayed unavailable after several ' +
        'retries (RPC answered HTTP 503)',
    );
    expect(describeFailure('buy', { Error: 'Sandbox.Timedout', Cause: '' })).toBe(
      'Launch failed while making the initial buy: the step timed out',
    );
    expect(describeFailure('complete', { Error: 'Lambda.ServiceException' })).toBe(
      'Launch failed while completing the launch: the launch service was unavailable',
    );
    const internal = describeFailure('mint', {
      Error: 'TypeError',
      Cause: lambdaCause('TypeError', 'Cannot read properties of undefined (reading secretKey)'),
    });
    expect(internal).toBe('Launch failed while minting the coin: an internal error occurred');
  });

  it('keeps the error short', () => {
    const long = describeFailure('mint', { Error: 'ChainError', Cause: 'x'.repeat(5_000) });
    expect(long.length).toBeLessThanOrEqual(500);
  });
});
