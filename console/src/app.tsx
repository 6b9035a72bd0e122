// The console's shell: configuration, sign-in, navigation and the pages.
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { type ConsoleConfig, currentToken, loadConfig, setToken } from './api.js';
import { CoinPage } from './pages/coin.js';
import { EconomyPage } from './pages/economy.js';
import { GameFormPage } from './pages/game-form.js';
import { GamesPage } from './pages/games.js';
import { IntegrityPage } from './pages/integrity.js';
import { PlayersPage } from './pages/players.js';
import { SignInPage } from './pages/sign-in.js';
import { WebhooksPage } from './pages/webhooks.js';
import { type Route, useRoute } from './router.js';
import { ErrorBox, Loading, useAsync } from './ui.js';

// Loaded on the first visit (its own chunk), so the console's first load does not grow with it (LazyPage, below).
const loadTournaments = () => import('./pages/tournaments.js');

// The connect page (a game asks the player to connect) is a focused page of its own, before any sign-in and
// without the console's navigation; loaded on its own too, so the console's first load does not carry it.
const loadConnect = () => import('./pages/connect.js');
const ConnectRoute = ({ route }: { route: Route }) => {
  const [module, retry] = useAsync(loadConnect, []);
  useEffect(() => {
    document.title = 'Connect with Arcadia';
  }, []);
  if (module.state === 'ok') return <module.value.ConnectPage route={route} />;
  return (
    <main id="main" class="narrow">
      <h1 tabIndex={-1}>Connect a game to your Arcadia account</h1>
      {module.state === 'loading' ? <Loading what="the connect page" /> : null}
      {module.state === 'error' ? <ErrorBox error={module.error} retry={retry} /> : null}
    </main>
  );
};

// The Game clients and Connected games pages are loaded on their first visit too: the first load's budget (the
// unit test's 30 kB gzip) has no room left for them. The heading is rendered here, so that focus can land on it
// while the chunk loads.
const loadClients = () => import('./pages/clients.js');
const loadConnections = () => import('./pages/connections.js');
// The overview (a game's landing page) brings the charts; its own chunk too.
const loadOverview = () => import('./pages/overview.js');
const LazyPage = <M,>({
  heading,
  load,
  children,
}: {
  heading: string;
  load: () => Promise<M>;
  children: (module: M) => ComponentChildren;
}) => {
  const [module, retry] = useAsync(load, []);
  return (
    <>
      <h1 tabIndex={-1}>{heading}</h1>
      {module.state === 'loading' ? <Loading what={`the ${heading} page`} /> : null}
      {module.state === 'error' ? <ErrorBox error={module.error} retry={retry} /> : null}
      {module.state === 'ok' ? children(module.value) : null}
    </>
  );
};

const NAV = [
  ['games', 'Games'],
  ['overview', 'Overview'],
  ['players', 'Players'],
  ['integrity', 'Integrity'],
  ['economy', 'Economy'],
  ['coin', 'Coin'],
  ['webhooks', 'Webhooks'],
  ['tournaments', 'Tournaments'],
  ['clients', 'Game clients'],
  ['connections', 'Connected games'],
] as const;

const Page = ({ route }: { route: Route }) => {
  const [section, id] = route.parts;
  const game = route.query.get('game') ?? undefined;
  switch (section) {
    case 'overview':
      return (
        <LazyPage key="overview" heading="Overview" load={loadOverview}>
          {({ OverviewPage }) => <OverviewPage gameId={game} />}
        </LazyPage>
      );
    case 'players':
      return <PlayersPage gameId={game} player={route.query.get('player') ?? undefined} />;
    case 'integrity':
      return <IntegrityPage gameId={game} />;
    case 'economy':
      return <EconomyPage gameId={game} />;
    case 'coin':
      return <CoinPage gameId={game} />;
    case 'webhooks':
      return <WebhooksPage gameId={game} endpointId={route.query.get('endpoint') ?? undefined} />;
    case 'tournaments':
      return (
        <LazyPage key="tournaments" heading="Tournaments" load={loadTournaments}>
          {({ TournamentsPage }) => (
            <TournamentsPage
              gameId={game}
              tournamentId={route.query.get('tournament') ?? undefined}
              periodId={route.query.get('period') ?? undefined}
              arcId={route.query.get('arcId') ?? undefined}
            />
          )}
        </LazyPage>
      );
    case 'clients':
      return (
        <LazyPage key="clients" heading="Game clients" load={loadClients}>
          {({ ClientsPage }) => <ClientsPage gameId={game} />}
        </LazyPage>
      );
    case 'connections':
      return (
        <LazyPage key="connections" heading="Connected games" load={loadConnections}>
          {({ ConnectionsPage }) => <ConnectionsPage />}
        </LazyPage>
      );
    case 'games':
      return id ? <GameFormPage gameId={id === 'new' ? undefined : id} /> : <GamesPage />;
    default:
      return <GamesPage />;
  }
};

const titleOf = (route: Route) => NAV.find(([path]) => path === route.parts[0])?.[1] ?? 'Games';

const Shell = ({ onSignOut }: { onSignOut: () => void }) => {
  const route = useRoute();
  const main = useRef<HTMLElement>(null);
  const section = route.parts[0] ?? 'games';
  const first = useRef(true);
  // Keyboard and screen-reader users land on the new page's heading after navigating (not on the first load,
  // where the skip link comes first).
  useEffect(() => {
    document.title = `${titleOf(route)} · Arcadia console`;
    if (first.current) first.current = false;
    else main.current?.querySelector('h1')?.focus();
  }, [section]);
  return (
    <>
      <button type="button" class="skip" onClick={() => main.current?.focus()}>
        Skip to content
      </button>
      <header class="top">
        <span class="brand">Arcadia console</span>
        <nav aria-label="Sections">
          <ul>
            {NAV.map(([path, label]) => (
              <li key={path}>
                <a
                  href={`#/${path}${route.query.get('game') ? `?game=${route.query.get('game')}` : ''}`}
                  aria-current={section === path ? 'page' : undefined}
                >
                  {label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <button type="button" class="link" onClick={onSignOut}>
          Sign out
        </button>
      </header>
      <main id="main" ref={main} tabIndex={-1}>
        <Page route={route} />
      </main>
    </>
  );
};

export const App = () => {
  const [config] = useAsync<ConsoleConfig>(loadConfig, []);
  const [signedIn, setSignedIn] = useState(() => currentToken() !== null);
  const route = useRoute();
  if (config.state === 'loading') return <Loading what="the console" />;
  if (config.state === 'error')
    return (
      <main>
        <ErrorBox error={config.error} />
      </main>
    );
  if (route.parts[0] === 'connect') return <ConnectRoute route={route} />;
  if (!signedIn) return <SignInPage onSignedIn={() => setSignedIn(true)} />;
  return (
    <Shell
      onSignOut={() => {
        setToken(null);
        setSignedIn(false);
        // The provider's session ends too, when this tab has one (its client is loaded for that only).
        if (Object.keys(sessionStorage).some((key) => key.startsWith('privy.')))
          void import('./privy.js')
            .then(({ signOut }) => signOut(config.value.identityProvider))
            .catch(() => {});
      }}
    />
  );
};
