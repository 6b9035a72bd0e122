// Star Catcher: the demo game of `npm run dev` (/demo). It uses only the SDK's browser module and the demo
// server's sign-in and config endpoints (the studio backend's part): the boards are read with the session token,
// no developer key in the page.
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
// Signing in needs the game's config (above): until then the form would submit as a plain page reload.
$('sign-in-button').disabled = false;
let player;
let client;
let score = 0;
let timer;

const moveStar = () => {
  const star = $('star');
  star.style.left = `${Math.floor(Math.random() * 85)}%`;
  star.style.top = `${Math.floor(Math.random() * 80)}%`;
};

$('sign-in').addEventListener('submit', async (event) => {
  event.preventDefault();
  try {
    player = await getJson('/demo/sign-in', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: $('name').value }),
    });
    $('subject').textContent = player.subject;
    $('game').hidden = false;
    log('Signed in. Start a run!');
  } catch (error) {
    log(`Sign-in failed: ${error.message}`);
  }
});

$('start').addEventListener('click', async () => {
  $('start').disabled = true;
  client = new PlayClient({ baseUrl: config.apiUrl });
  try {
    await client.start(config.gameId, player.token);
  } catch (error) {
    $('start').disabled = false;
    return log(`Could not open a session: ${error.code ?? ''} ${error.message}`);
  }
  // The player's sign-in name as its display name on the boards (moderated by the API; a refusal is only logged).
  await client.setDisplayName($('name').value.slice(0, 32)).catch((error) => log(`name: ${error.message}`));
  score = 0;
  $('score').textContent = '0';
  $('pending').textContent = '0';
  $('star').hidden = false;
  $('end').disabled = false;
  moveStar();
  log('Catch the stars!');
  // Points go out at most once a second (the per-session flush limit); the client paces itself anyway.
  timer = setInterval(async () => {
    const result = await client.flushPending().catch((error) => log(`flush: ${error.message}`));
    if (result) $('pending').textContent = String(result.pendingPoints);
  }, 1000);
});

/** Today's top 10: rank, display name (else the studio's identifier), points; the player's own row marked. */
const showTop = (entries, myArcId) => {
  const rows = entries.map((entry) => {
    const row = document.createElement('li');
    row.value = entry.rank;
    // textContent, never HTML: names come from other players.
    row.textContent = `${entry.displayName ?? entry.playerId ?? 'anonymous'} · ${entry.points}`;
    if (entry.arcId === myArcId) row.className = 'me';
    return row;
  });
  $('top').replaceChildren(...rows);
};

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
  } catch (error) {
    log(`Could not save the run: ${error.code ?? ''} ${error.message}`);
  }
  $('start').disabled = false;
});
