/**
 * LauncherTable keys. Access patterns:
 * - launch job by id:              pk=JOB#<jobId>       sk=JOB          (GET /token-launcher/launch/{jobId}, tasks)
 * - a game's launch lock:          pk=GAME#<gameId>     sk=LAUNCH_LOCK  (state held|released; held = a launch in
 *                                                                       progress; acquired conditionally, so one
 *                                                                       job per game even under concurrent calls)
 * - symbol reservation:            pk=SYMBOL#<SYMBOL>   sk=SYMBOL       (state reserved by a job | taken by a coin;
 *                                                                       written with attribute_not_exists)
 * - job that launched a mint:      pk=COIN#<mint>       sk=JOB          (complete-launch finds its job by mint)
 * - coin record by mint:           pk=COIN#<mint>       sk=COIN         (created once, by complete-launch)
 * - open jobs by deadline:         GSI openJobs on openJob='OPEN' (sparse: set when a job is created, removed when
 *                                  it completes or fails), sort key deadlineAt (the sweeper's query)
 * The game's coin summary and the mint → game link live in GamesTable (lib/games), written in the same
 * transaction as the coin record.
 */
export const launcherKeys = {
  job: (jobId: string) => ({ pk: `JOB#${jobId}`, sk: 'JOB' }),
  lock: (gameId: string) => ({ pk: `GAME#${gameId}`, sk: 'LAUNCH_LOCK' }),
  symbol: (symbol: string) => ({ pk: `SYMBOL#${symbol}`, sk: 'SYMBOL' }),
  mintJob: (coinMint: string) => ({ pk: `COIN#${coinMint}`, sk: 'JOB' }),
  coin: (coinMint: string) => ({ pk: `COIN#${coinMint}`, sk: 'COIN' }),
};

/** The sparse index of open jobs by deadline, its partition attribute and the one value it takes. */
export const OPEN_JOBS_INDEX = 'openJobs';
export const OPEN_JOB_ATTRIBUTE = 'openJob';
export const OPEN_JOB = 'OPEN';
