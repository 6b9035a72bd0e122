// Connected games: the games the signed-in player let act for them (Connect with Arcadia), what each may do, its
// daily spending limit, and Disconnect (the grant is revoked: the game's tokens stop working at once).
import { useState } from 'preact/hooks';
import { api, data, type ShownError, shownError } from '../api.js';
import { Sol, Time } from '../format.js';
import { Empty, ErrorBox, Head, Show, TableWrap, useAsync } from '../ui.js';

type Connection = { gameId: string; gameName: string | null; scopes: Array<{ scope: string }> };

const nameOf = (c: Connection) => c.gameName ?? c.gameId;

const Disconnect = ({
  connection,
  onConfirm,
}: {
  connection: Connection;
  onConfirm: () => Promise<void>;
}) => {
  const [confirming, setConfirming] = useState(false);
  if (!confirming)
    return (
      <button
        type="button"
        class="danger"
        onClick={() => setConfirming(true)}
        aria-label={`Disconnect ${nameOf(connection)}…`}
      >
        Disconnect…
      </button>
    );
  return (
    <fieldset class="confirm">
      <legend>Disconnect {nameOf(connection)}? It can no longer play, read or buy for you.</legend>
      <button type="button" class="danger" onClick={() => void onConfirm()}>
        Disconnect
      </button>{' '}
      <button type="button" onClick={() => setConfirming(false)}>
        Cancel
      </button>
    </fieldset>
  );
};

const Limit = ({ connection, lamports }: { connection: Connection; lamports: string | null }) => {
  if (!connection.scopes.some((s) => s.scope === 'multipliers:buy')) return <span>Can't spend</span>;
  if (lamports === null) return <span>None: can't spend</span>;
  return (
    <span>
      <Sol lamports={lamports} /> a day
    </span>
  );
};

/** The page below its heading (the console's shell renders the heading while this chunk loads). */
export const ConnectionsPage = () => {
  const [connections, reload] = useAsync(async () => data(await api().GET('/user/connections')), []);
  const [notice, setNotice] = useState<string | null>(null);
  const [error, setError] = useState<ShownError | null>(null);
  const disconnect = async (connection: Connection) => {
    setError(null);
    setNotice(null);
    try {
      await api().DELETE('/user/connections/{gameId}', { params: { path: { gameId: connection.gameId } } });
      setNotice(`Disconnected ${nameOf(connection)}: its keys stop working now.`);
      reload();
    } catch (caught) {
      setError(shownError(caught));
    }
  };
  return (
    <>
      <p>
        Games you let act for you with Connect with Arcadia. Each holds a key for itself only, with what you
        approved; disconnecting one stops its keys at once.
      </p>
      {notice ? (
        <p role="status" class="notice">
          {notice}
        </p>
      ) : null}
      {error ? <ErrorBox error={error} /> : null}
      <Show result={connections} what="your connected games" retry={reload}>
        {(list) =>
          list.length === 0 ? (
            <Empty>No connected games.</Empty>
          ) : (
            <TableWrap label="Connected games">
              <table>
                <caption>Games connected to your account</caption>
                <Head columns={['Game', 'It may', 'Daily spending limit', 'Connected', 'Action']} />
                <tbody>
                  {list.map((c) => (
                    <tr key={c.gameId}>
                      <td>
                        <span class="game-link">
                          {c.imageUrl ? <img src={c.imageUrl} alt="" width={32} height={32} /> : null}
                          <span class="connection-name">{nameOf(c)}</span>
                        </span>
                      </td>
                      <td>
                        <ul class="scope-list" style={{ margin: 0, paddingLeft: '1.1rem' }}>
                          {c.scopes.map((s) => (
                            <li key={s.scope}>{s.description}</li>
                          ))}
                        </ul>
                      </td>
                      <td class="limit-cell">
                        <Limit connection={c} lamports={c.spendingLimitLamportsPerDay} />
                      </td>
                      <td>
                        <Time iso={c.connectedAt} />
                      </td>
                      <td>
                        <Disconnect connection={c} onConfirm={() => disconnect(c)} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableWrap>
          )
        }
      </Show>
    </>
  );
};
