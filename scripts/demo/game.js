// Star Catcher: the demo game of `npm run dev` (/demo). It uses only the SDK's browser module and the demo
// server's config (the studio backend's part: the game and its OAuth client). The player connects with Arcadia in a
// popup (signing in on Arcadia's page, never here), and the page plays, reads the boards and buys multipliers with
// the grant the player gave: no developer key and no identity token in the page.
import { PlayClient } from '/demo/arcadia-play.js';

const $ = (id) => document.getElementById(id);
const log = (text) => {
  $('log').textContent = text;
};
const getJson = async (path, init) => {
  const res = await fetch(path, init);
  const body = await res.json();
  if (!res.ok) throw new Error(body.error?.message ?? `HTTP ${res.status}`);
  return body;
};

// Without the demo game's config nothing can be played: say why on the page instead of failing silently.
const config = await getJson('/demo/config').catch((error) => {
  log(`The demo is not ready: ${error.message}`);
  throw error;
});
// What the demo asks: play, read, join tournaments, and buy multipliers within the limit the player sets.
const SCOPES = ['play', 'read', 'tournaments:join', 'multipliers:buy'];
const client = new PlayClient({ baseUrl: config.apiUrl, clientId: config.clientId });
$('connect').disabled = false;
let score = 0;
let timer;

const moveStar = () => {
  const star = $('star');
  star.style.left = `${Math.floor(Math.random() * 85)}%`;
  star.style.top = `${Math.floor(Math.random() * 80)}%`;
};

// The popup opens in this click (a popup opened later is blocked); its redirect URI is the page's registered one.
$('connect').addEventListener('click', async () => {
  $('connect').disabled = true;
  log('Connecting in the Arcadia window…');
  try {
    const connection = await client.connect({ scopes: SCOPES, redirectUri: `${location.origin}/demo` });
    $('scopes').textContent = connection.scopes.join(', ');
    $('connect').hidden = true;
    $('game').hidden = false;
    void showMultiplier();
    log('Connected. Start a run!');
  } catch (error) {
    $('connect').disabled = false;
    log(`Could not connect: ${error.code ?? ''} ${error.message}`);
  }
});

$('start').addEventListener('click', async () => {
  $('start').disabled = true;
  try {
    await client.start(config.gameId);
  } catch (error) {
    $('start').disabled = false;
    return log(`Could not open a session: ${error.code ?? ''} ${error.message}`);
  }
  // The name the player typed as its display name on the boards (moderated by the API; a refusal is only logged).
  await client.setDisplayName($('name').value.slice(0, 32)).catch((error) => log(`name: ${error.message}`));
  score = 0;
  $('score').textContent = '0';
  $('pending').textContent = '0';
  $('star').hidden = false;
  $('end').disabled = false;
  void showTournament();
  moveStar();
  log('Catch the stars!');
  // Points go out at most once a second (the per-session flush limit); the client paces itself anyway.
  timer = setInterval(async () => {
    const result = await client.flushPending().catch((error) => log(`flush: ${error.message}`));
    if (result) $('pending').textContent = String(result.pendingPoints);
  }, 1000);
});

/** A top 10: rank, display name (else the studio's identifier), points; the player's own row marked. */
const showTop = (entries, myArcId, list = $('top')) => {
  const rows = entries.map((entry) => {
    const row = document.createElement('li');
    row.value = entry.rank;
    // textContent, never HTML: names come from other players.
    row.textContent = `${entry.displayName ?? entry.playerId ?? 'anonymous'} · ${entry.points}`;
    if (entry.arcId === myArcId) row.className = 'me';
    return row;
  });
  list.replaceChildren(...rows);
};

// The game's running tournament (else its next one), read with the session token: a countdown to the end of
// the running period (or the start of the next), a Join button and the period's top 10. No tournament: no panel.
let shown;
let countdown;
let refreshedAt = 0;

const formatLeft = (ms) => {
  const s = Math.max(0, Math.ceil(ms / 1000));
  const [h, m] = [Math.floor(s / 3600), Math.floor((s % 3600) / 60)];
  const mmss = `${String(m).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}`;
  return h ? `${h}:${mmss}` : mmss;
};

const tick = () => {
  const left = Date.parse(shown.target) - Date.now();
  $('t-countdown').textContent = formatLeft(left);
  // The period ended (or began): read the tournament again, at most every 5 s (the reads are rate limited).
  if (left <= 0 && Date.now() - refreshedAt > 5000) void showTournament();
};

const setJoined = (joined) => {
  $('join').disabled = joined;
  $('join').textContent = joined ? 'Joined' : 'Join';
};

async function showTournament() {
  refreshedAt = Date.now();
  try {
    const t = (await client.tournaments()).find((each) => each.current ?? each.next);
    if (!t) {
      clearInterval(countdown);
      $('tournament').hidden = true;
      return;
    }
    const period = t.current ?? t.next;
    const running = period.status === 'running';
    shown = { id: t.tournamentId, target: running ? period.endsAt : period.startsAt };
    $('t-title').textContent = t.title;
    $('t-when').textContent = running ? 'Ends in' : 'Starts in';
    clearInterval(countdown);
    countdown = setInterval(tick, 1000);
    tick();
    const [entries, board] = await Promise.all([
      client.myTournamentEntries({ limit: 100 }),
      running ? client.tournamentBoard(t.tournamentId, period.id, { limit: 10, me: true }) : null,
    ]);
    setJoined(entries.some((e) => e.tournamentId === t.tournamentId && e.period === period.id));
    showTop(board?.entries ?? [], board?.player?.arcId, $('t-top'));
    $('tournament').hidden = false;
  } catch (error) {
    log(`tournament: ${error.code ?? ''} ${error.message}`);
  }
}

$('join').addEventListener('click', async () => {
  $('join').disabled = true;
  try {
    await client.joinTournament(shown.id);
    setJoined(true);
    log('Joined the tournament: your runs count in it.');
  } catch (error) {
    $('join').disabled = false;
    log(`Could not join: ${error.code ?? ''} ${error.message}`);
  }
});

// The player's multiplier in this game, if one is active.
async function showMultiplier() {
  try {
    const current = await client.currentMultiplier();
    $('active').textContent = current.active
      ? `${current.multiplier.tier} until ${new Date(current.multiplier.expiresAt).toLocaleTimeString()}`
      : 'none';
  } catch (error) {
    log(`multiplier: ${error.code ?? ''} ${error.message}`);
  }
}

// Paid from the player's wallet, within the daily limit the player chose when connecting: above it the API refuses
// (and nothing is charged), and the page says so.
$('buy').addEventListener('click', async () => {
  $('buy').disabled = true;
  const tier = $('tier').value;
  log(`Buying a ${tier} multiplier…`);
  try {
    const purchase = await client.buyMultiplier({ tier, durationSeconds: Number($('duration').value) });
    log(
      purchase.status === 'completed'
        ? `Bought: ${purchase.tier} for ${purchase.lamports} lamports.`
        : 'Purchase sent, not confirmed yet.',
    );
    void showMultiplier();
  } catch (error) {
    log(
      error.code === 'PURCHASE_ALLOWANCE_EXCEEDED' || error.code === 'PURCHASE_ALLOWANCE_REQUIRED'
        ? `Above your spending limit for this game: ${error.message}`
        : `Could not buy: ${error.code ?? ''} ${error.message}`,
    );
  }
  $('buy').disabled = false;
});

$('star').addEventListener('click', () => {
  score += 10;
  client.add(10);
  $('score').textContent = String(score);
  moveStar();
});

$('end').addEventListener('click', async () => {
  clearInterval(timer);
  $('end').disabled = true;
  $('star').hidden = true;
  log('Saving your run…');
  try {
    await client.flushPending();
    const committed = await client.commit();
    const points = await client.points();
    // Today's board, read with the session token: the top 10 and the player's own rank.
    const [board, mine] = await Promise.all([client.leaderboard({ limit: 10 }), client.myRank()]);
    showTop(board.entries, mine.player.arcId);
    $('points').textContent = String(points.today);
    $('rank').textContent = mine.player.rank === null ? '–' : `#${mine.player.rank}`;
    log(
      `Run saved: ${committed.committedPoints} points${committed.clipped ? ' (clipped by the daily cap)' : ''}.`,
    );
    // The run counted in the tournaments the player joined: their board again.
    void showTournament();
  } catch (error) {
    log(`Could not save the run: ${error.code ?? ''} ${error.message}`);
  }
  $('start').disabled = false;
});
