// Plays one session against `npm run dev` with the SDK's play client (sdk/):
//   npm run play-demo -- <gameId> [player-name]
// The game must exist (POST /games); the player token comes from the local identity provider.
import { PlayClient } from '../sdk/src/index.js';
import { fetchLocalToken } from './token.js';

const [gameId, name = 'demo-player'] = process.argv.slice(2);
if (!gameId) {
  console.error('usage: npm run play-demo -- <gameId> [player-name]');
  process.exit(2);
}
const client = new PlayClient({ baseUrl: process.env.API_BASE_URL ?? 'http://localhost:3000' });
const { token } = await fetchLocalToken(name, process.env.IDP_URL);
const session = await client.start(gameId, token);
console.log(`session ${session.sessionId}, chain seed ${session.chainSeed.slice(0, 16)}…`);
for (let i = 0; i < 5; i++) {
  const delta = 10 + Math.floor(Math.random() * 40);
  // The client paces flushes itself (1 per second per session).
  const res = await client.flush(delta);
  console.log(`flush #${res.seq}: +${delta} (accepted ${res.accepted}), pending ${res.pendingPoints}`);
}
console.log('commit:', await client.commit());
console.log('points:', await client.points());
