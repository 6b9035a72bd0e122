// Games: the user's games (created or owned, hidden ones included) and their API credentials.
import { useState } from 'preact/hooks';
import { api, data, type ShownError, shownError } from '../api.js';
import { Time } from '../format.js';
import { href } from '../router.js';
import { SecretOnce } from '../secret.js';
import { Empty, ErrorBox, Head, OffsetPager, Show, TableWrap, useAsync } from '../ui.js';

const LIMIT = 20;

const Credentials = () => {
  const [me, reload] = useAsync(async () => data(await api().GET('/user/me')), []);
  const [fresh, setFresh] = useState<{ apiKey: string; secretKey: string } | null>(null);
  const [confirming, setConfirming] = useState(false);
  const [error, setError] = useState<ShownError | null>(null);
  const reset = async () => {
    setConfirming(false);
    setError(null);
    try {
      setFresh(data(await api().POST('/user/reset-secret')));
    } catch (caught) {
      setError(shownError(caught));
    }
  };
  return (
    <section aria-labelledby="credentials-title">
      <h2 id="credentials-title">API credentials</h2>
      <Show result={me} what="your profile" retry={reload}>
        {(profile) => (
          <>
            <p>
              Signed in as <code>{profile.subject ?? profile.arcId}</code>. API key:{' '}
              <code>{profile.apiKey ?? 'none yet'}</code>. Your game's backend signs with this key and its
              secret; the console itself uses your sign-in and never holds the secret.
            </p>
            {fresh ? (
              <SecretOnce {...fresh} onDone={() => setFresh(null)} />
            ) : confirming ? (
              <fieldset class="confirm">
                <legend>Reset the secret? The current one stops working immediately.</legend>
                <button type="button" class="danger" onClick={() => void reset()}>
                  Reset the secret
                </button>{' '}
                <button type="button" onClick={() => setConfirming(false)}>
                  Cancel
                </button>
              </fieldset>
            ) : (
              <button type="button" onClick={() => setConfirming(true)}>
                Reset secret…
              </button>
            )}
            {error ? <ErrorBox error={error} /> : null}
          </>
        )}
      </Show>
    </section>
  );
};

export const GamesPage = () => {
  const [offset, setOffset] = useState(0);
  const [games, reload] = useAsync(async () => {
    const page = await api().GET('/games/me', {
      params: { query: { limit: LIMIT, offset, include_extra: true } },
    });
    if (!page.data) throw new Error('The API answered without a body');
    return page.data;
  }, [offset]);
  return (
    <>
      <h1 tabIndex={-1}>Games</h1>
      <p>
        <a class="button" href={href('games/new')}>
          Register a game
        </a>
      </p>
      <Show result={games} what="your games" retry={reload}>
        {({ data: list, meta }) =>
          list.length === 0 ? (
            <Empty>You have no games yet. Register one to get started.</Empty>
          ) : (
            <>
              <TableWrap label="Your games">
                <table>
                  <caption>Games you created or own</caption>
                  <Head columns={['Game', 'Visibility', 'Domain', 'Coin', 'Created']} />
                  <tbody>
                    {list.map((game) => (
                      <tr key={game.id}>
                        <td>
                          <a href={href('overview', { game: game.id })} class="game-link">
                            {game.imageUrl ? <img src={game.imageUrl} alt="" width={32} height={32} /> : null}
                            {game.name}
                          </a>
                        </td>
                        <td>{game.hidden ? 'Hidden' : 'Visible'}</td>
                        <td>{game.ownershipVerified ? 'Verified' : 'Not verified'}</td>
                        <td>
                          {game.tokens?.gameCoin
                            ? `${game.tokens.gameCoin.gameCoinSymbol} (${game.tokens.gameCoin.status})`
                            : '–'}
                        </td>
                        <td>
                          <Time iso={game.createdAt} />
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </TableWrap>
              <OffsetPager
                offset={offset}
                limit={LIMIT}
                total={meta.total}
                shown={list.length}
                onChange={setOffset}
                label="Games"
              />
            </>
          )
        }
      </Show>
      <Credentials />
    </>
  );
};
