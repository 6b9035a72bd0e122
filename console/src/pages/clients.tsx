// Game clients: a game's OAuth clients, through which its pages ask players to connect (Connect with Arcadia).
// List, register (name, exact redirect URIs, the origins a popup may post its result to) and remove. The API
// checks every URI and origin; its refusals are shown by field path (`redirectUris.0: must be https`).
import { useState } from 'preact/hooks';
import { api, consoleConfig, data, type ShownError, shownError } from '../api.js';
import { Time } from '../format.js';
import { go } from '../router.js';
import { Empty, ErrorBox, GamePicker, Head, Show, TableWrap, useAsync } from '../ui.js';

/** One entry a line, blank lines dropped. */
const lines = (text: string) =>
  text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);

const Register = ({ gameId, onCreated }: { gameId: string; onCreated: (name: string) => void }) => {
  const [name, setName] = useState('');
  const [redirectUris, setRedirectUris] = useState('');
  const [origins, setOrigins] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ShownError | null>(null);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const created = data(
        await api().POST('/games/oauth-clients/{gameId}', {
          params: { path: { gameId } },
          body: { name: name.trim(), redirectUris: lines(redirectUris), origins: lines(origins) },
        }),
      );
      setName('');
      setRedirectUris('');
      setOrigins('');
      onCreated(created.name);
    } catch (caught) {
      setError(shownError(caught));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form onSubmit={(e) => void submit(e)} aria-labelledby="add-client-title">
      <h2 id="add-client-title">Add a client</h2>
      <label>
        Name
        <input
          name="name"
          type="text"
          required
          maxLength={80}
          placeholder="Web game"
          value={name}
          onInput={(e) => setName(e.currentTarget.value)}
        />
      </label>
      <label>
        Redirect URIs (one a line)
        <textarea
          name="redirectUris"
          required
          rows={3}
          placeholder="https://quest.example/connected"
          aria-describedby="redirect-hint"
          value={redirectUris}
          onInput={(e) => setRedirectUris(e.currentTarget.value)}
        />
      </label>
      <p id="redirect-hint" class="hint">
        Exact addresses the player returns to with the code: https (plain http on localhost on the local stack
        only), no fragment. A request with any other address is refused on the connect page.
      </p>
      <label>
        Origins for the popup (optional, one a line)
        <textarea
          name="origins"
          rows={2}
          placeholder="https://quest.example"
          aria-describedby="origins-hint"
          value={origins}
          onInput={(e) => setOrigins(e.currentTarget.value)}
        />
      </label>
      <p id="origins-hint" class="hint">
        The pages that open the connect page as a popup: the result is posted to these origins only.
      </p>
      <button type="submit" disabled={busy}>
        {busy ? 'Adding…' : 'Add client'}
      </button>
      {error ? <ErrorBox error={error} /> : null}
    </form>
  );
};

type Client = {
  clientId: string;
  name: string;
  redirectUris: string[];
  origins: string[];
  createdAt: string;
};

const Remove = ({ client, onRemove }: { client: Client; onRemove: () => Promise<void> }) => {
  const [confirming, setConfirming] = useState(false);
  if (!confirming)
    return (
      <button
        type="button"
        class="danger"
        onClick={() => setConfirming(true)}
        aria-label={`Remove ${client.name}…`}
      >
        Remove…
      </button>
    );
  return (
    <fieldset class="confirm">
      <legend>Remove {client.name}? Its pages can't connect players any more.</legend>
      <button type="button" class="danger" onClick={() => void onRemove()}>
        Remove client
      </button>{' '}
      <button type="button" onClick={() => setConfirming(false)}>
        Cancel
      </button>
    </fieldset>
  );
};

const Clients = ({ gameId }: { gameId: string }) => {
  const [clients, reload] = useAsync(
    async () => data(await api().GET('/games/oauth-clients/{gameId}', { params: { path: { gameId } } })),
    [gameId],
  );
  const [notice, setNotice] = useState<string | null>(null);
  const [error, setError] = useState<ShownError | null>(null);
  const remove = async (client: Client) => {
    setError(null);
    setNotice(null);
    try {
      await api().DELETE('/games/oauth-clients/{gameId}/{clientId}', {
        params: { path: { gameId, clientId: client.clientId } },
      });
      setNotice(`Removed ${client.name}.`);
      reload();
    } catch (caught) {
      setError(shownError(caught));
    }
  };
  return (
    <>
      {notice ? (
        <p role="status" class="notice">
          {notice}
        </p>
      ) : null}
      {error ? <ErrorBox error={error} /> : null}
      <section aria-labelledby="clients-title">
        <h2 id="clients-title">Clients</h2>
        <Show result={clients} what="the clients" retry={reload}>
          {(list) =>
            list.length === 0 ? (
              <Empty>No clients yet: add one below to let this game's pages connect players.</Empty>
            ) : (
              <TableWrap label="OAuth clients">
                <table>
                  <caption>Clients of this game (at most 10)</caption>
                  <Head columns={['Name', 'Client id', 'Redirect URIs', 'Origins', 'Added', 'Action']} />
                  <tbody>
                    {list.map((client) => (
                      <tr key={client.clientId}>
                        <td>{client.name}</td>
                        <td>
                          <code class="client-id">{client.clientId}</code>
                        </td>
                        <td>
                          {client.redirectUris.map((uri) => (
                            <div key={uri}>
                              <code class="url">{uri}</code>
                            </div>
                          ))}
                        </td>
                        <td>
                          {client.origins.length === 0
                            ? '–'
                            : client.origins.map((origin) => (
                                <div key={origin}>
                                  <code class="url">{origin}</code>
                                </div>
                              ))}
                        </td>
                        <td>
                          <Time iso={client.createdAt} />
                        </td>
                        <td>
                          <Remove client={client} onRemove={() => remove(client)} />
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </TableWrap>
            )
          }
        </Show>
      </section>
      <Register
        gameId={gameId}
        onCreated={(name) => {
          setNotice(`Added ${name}.`);
          reload();
        }}
      />
    </>
  );
};

/** The page below its heading (the console's shell renders the heading while this chunk loads). */
export const ClientsPage = ({ gameId }: { gameId: string | undefined }) => (
  <>
    <p>
      A game's pages connect players through a client: the player approves on Arcadia's connect page, and the
      game gets a key for this game only, never the player's account. The game sends players to{' '}
      <code class="url">{consoleConfig().apiUrl}/oauth/authorize</code> with its client id (authorization code
      with PKCE).
    </p>
    <GamePicker gameId={gameId} onChange={(id) => go('clients', { game: id })} />
    {gameId ? <Clients key={gameId} gameId={gameId} /> : null}
  </>
);
