// A payout run's verification in the browser (docs/provable-payouts.md): the run's published statement, read
// through the API, checked by the SDK's `verifyStatement` against its rules and the chain (the config's `rpcUrl`;
// locally the console server's relay). Loaded on a first "Verify" (console/src/verify-button.tsx); the verifier
// (and the hashing and base58 it brings) is a chunk of its own again, fetched when a run has a statement to check.

import type { components } from '@arcadia/sdk';
import { api, consoleConfig, data, txUrl } from './api.js';
import { Short } from './format.js';
import { ErrorBox, Loading, useAsync } from './ui.js';
import styles from './verify.css?inline';

// The styles travel in this chunk as text, added once when it loads (a stylesheet of its own would be listed in
// the first load's script).
document.head.append(Object.assign(document.createElement('style'), { textContent: styles }));

type PublishedRun = components['schemas']['RunStatement'];

/** Which run: a game's settled day, or a tournament period's prizes. */
export type RunRef = { day: string } | { tournamentId: string; periodId: string };

const readRun = async (gameId: string, run: RunRef): Promise<PublishedRun> =>
  'day' in run
    ? data(
        await api().GET('/rewards/statements/{gameId}/days/{day}', {
          params: { path: { gameId, day: run.day } },
        }),
      )
    : data(
        await api().GET('/rewards/statements/{gameId}/prizes/{tournamentId}/{periodId}', {
          params: { path: { gameId, ...run } },
        }),
      );

/** The game's vault as its pool names it: the verifier checks the run against it, not against the run's word. */
const readVault = async (gameId: string) =>
  data(await api().GET('/rewards/game-rewards-pool/{gameId}', { params: { path: { gameId } } })).vaultAddress;

const verify = async (gameId: string, ref: RunRef, knownVault: string | null | undefined) => {
  const [run, vault] = await Promise.all([
    readRun(gameId, ref),
    knownVault === undefined ? readVault(gameId) : knownVault,
  ]);
  if (!run.statement || !run.root) return { run, result: undefined };
  const rpcUrl = consoleConfig().rpcUrl;
  if (!rpcUrl) throw new Error('This console has no rpcUrl in its config.json: it cannot read the chain');
  const { verifyStatement } = await import('../../sdk/src/statements.js');
  const result = await verifyStatement(run, new URL(rpcUrl, document.baseURI).href, {
    ...(vault ? { vault } : {}),
  });
  return { run, result };
};

/** A run's verification: ✓ verified or ✗ not, its committed root, and each check with its reason. */
export const RunVerification = ({
  gameId,
  run: ref,
  vault,
}: {
  gameId: string;
  run: RunRef;
  /** The game's vault (the pool's), when the page has it; else read from the pool. */
  vault?: string | null;
}) => {
  const [state, retry] = useAsync(
    () => verify(gameId, ref, vault),
    [gameId, 'day' in ref ? ref.day : `${ref.tournamentId}/${ref.periodId}`, vault],
  );
  if (state.state === 'loading') return <Loading what="the statement and verifying it against the chain" />;
  if (state.state === 'error') return <ErrorBox error={state.error} retry={retry} />;
  const { run, result } = state.value;
  if (!result)
    return (
      <div class="verification">
        <p class="empty">No statement: this run was paid before statements existed.</p>
      </div>
    );
  const failed = result.checks.filter((c) => !c.ok).length;
  const signature = run.commitment?.signature;
  return (
    <div class="verification">
      <p>
        <span class={`badge ${result.ok ? 'ok' : 'bad'}`}>{result.ok ? '✓ Verified' : '✗ Not verified'}</span>{' '}
        Root <Short value={run.root} />
        {signature ? (
          <>
            , committed in{' '}
            <a href={txUrl(signature)}>
              <Short value={signature} />
            </a>
          </>
        ) : (
          ', no commitment on chain'
        )}
        .
      </p>
      <details>
        <summary>
          {result.checks.length} checks{failed ? `, ${failed} failed` : ', all passed'}
        </summary>
        <ul aria-label="Checks">
          {result.checks.map((c) => (
            <li key={c.name} class={c.ok ? 'ok' : 'bad'}>
              <span class={`mark ${c.ok ? 'ok' : 'bad'}`}>{c.ok ? '✓' : '✗'}</span> <code>{c.name}</code>
              {c.reason ? `: ${c.reason}` : ''}
            </li>
          ))}
        </ul>
      </details>
    </div>
  );
};
