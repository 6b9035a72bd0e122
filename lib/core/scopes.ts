// What a game may do for a player with a token the player's grant gave it (docs/connect.md). Each route that a
// game-scoped token may call names one of these in its contract; every other route refuses such a token (403
// INSUFFICIENT_SCOPE). The words are what the connect page shows the player.

export const SCOPES = {
  play: 'Play: open sessions and save your points in this game, and set your name on its boards',
  read: 'See your points, ranks, tournaments and payouts in this game',
  'tournaments:join': "Join this game's tournaments for you",
  'multipliers:buy': 'Buy score multipliers in this game with your SOL, up to the daily limit you set',
} as const;

export type Scope = keyof typeof SCOPES;
export const SCOPE_NAMES = Object.keys(SCOPES) as Scope[];

export const isScope = (value: string): value is Scope => Object.hasOwn(SCOPES, value);

/** What a session token opened with the player's own platform identity token may do (the platform's pages). */
export const PLATFORM_SESSION_SCOPES: readonly Scope[] = SCOPE_NAMES;
/** A session opened with the game's own JWT (jwksUrl): plays, reads and joins, never spends. */
export const GAME_JWT_SESSION_SCOPES: readonly Scope[] = ['play', 'read', 'tournaments:join'];
