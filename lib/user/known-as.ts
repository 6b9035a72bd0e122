// The identifier a game's studio knows a player by, for board entries: the studio names players by identifiers
// (batch saves, the developer reads) or through its own auth (a game JWT's `sub`), and needs one of them back on
// an entry to map it to its own records without keeping a map of Arc IDs.
//
// Nothing records which identifier a studio sent for a player, and a player may hold several (the one it was
// created with, its provider subject and embedded wallet added by its import, others moved in by a merge). The
// rule, in order:
// 1. the player's subject of this game's own auth (`did:game<gameId hex>:<sub>`): the studio's own id for it;
// 2. else the player's first identifier, the one its user was created with: the studio's playerId, normalised,
//    when a batch save created the player; its provider subject when it signed in first (which is what the
//    studio's backend receives from the provider too); another game's own-auth subject is never shown;
// 3. else none (the Arc ID alone).
// Each is an identifier the developer routes accept and that resolves to the same Arc ID, so a studio can send
// it back as a playerId.
import { GAME_SUBJECT, gameSubjectPrefix } from './identifiers.js';
import { userIdentities } from './repository.js';

/** Who reads the board: a player's client never sees another player's email. */
export type BoardAudience = 'studio' | 'player';

/** The identifier a studio knows a user by in a game (see the rule above), or null. */
export const studioIdentifier = (
  user: { identifiers: readonly string[] },
  gameId: string,
  audience: BoardAudience,
): string | null => {
  const own = gameSubjectPrefix(gameId);
  const chosen =
    user.identifiers.find((key) => key.startsWith(own)) ??
    user.identifiers.find((key) => !GAME_SUBJECT.test(key));
  if (!chosen) return null;
  // An email is personal data: shown to the studio, which supplied or holds it, never to other players.
  return audience === 'player' && chosen.startsWith('email:') ? null : chosen;
};

/** The studio identifier of each Arc ID (null when none), from one BatchGetItem of their profiles per 100. */
export const studioIdentifiers = async (
  arcIds: string[],
  gameId: string,
  audience: BoardAudience,
): Promise<Map<string, string | null>> => {
  const users = await userIdentities(arcIds);
  return new Map(
    arcIds.map((arcId) => {
      const user = users.get(arcId);
      return [arcId, user ? studioIdentifier(user, gameId, audience) : null];
    }),
  );
};
