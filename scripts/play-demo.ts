// Plays one session against `npm run dev` with the reference client:
//   npm run play-demo -- <gameId> [player-name]
// The game must exist (POST /games); the player token comes from the local identity provider.
import { fetchTransport, PlayClient } from '../lib/play/index.js';
import { fetchLocalToken } from './token.js';

const [gameId, name = 'demo-player'] = process.argv.slice(2);
if (!gameId) {
  console.error('usage: npm run play-demo -- <gameId> [player-name]');
  process.exit(2);
}
const base = process.env.API_BASE_URL ?? 'http://localhost:3000';
const client = new PlayClient(fetchTransport(base));
const { token } = await fetchLocalToken(name);
const session = await client.start(gameId, token);
console.log(`session ${session.sessionId}, chain seed ${session.chainSeed.slice(0, 16)}…`);
for (let i = 0; i < 5; i++) {
  await new Promise((r) => setTimeout(r, 1100 + Math.random() * 900));
  const delta = 10 + Math.floor(Math.random() * 40);
  const res = await client.flush(delta);
  console.log(`flush #${res.seq}: +${delta} (accepted ${res.accepted}), pending ${res.pendingPoints}`);
}
await new Promise((r) => setTimeout(r, 1000));
console.log('commit:', await client.commit());
console.log('points:', await client.points());
