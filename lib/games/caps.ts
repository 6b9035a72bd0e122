// A game's play caps: what bounds the points its players can earn. Every cap has a default, so a game that sets
// none is bounded all the same (a scripted client must not find an unlimited game), and a maximum, so that no
// setting makes a game unlimited in effect. docs/play-protocol.md §8 documents both.

/** The caps a game can set, each with its default (a game that sets none) and the most a game can set. */
export const PLAY_CAPS = {
  /** Points one session can count. */
  maxScorePerSession: { default: 100_000, max: 1_000_000_000 },
  /** Sessions a player can open (SDK) or start (backend saves) per UTC day. */
  maxSessionsPerDay: { default: 100, max: 10_000 },
  /** Points a player can count per UTC day, all sessions and both save paths together. */
  maxCumulativePointsPerDay: { default: 1_000_000, max: 1_000_000_000_000 },
  /** The earning rate of a player's budget (client SDK flushes): points per second, all sessions together. */
  maxPointsPerSecond: { default: 100, max: 100_000 },
  /** The burst of that budget: the most it holds, however long the player was idle. */
  maxBurstPoints: { default: 1_000, max: 10_000_000 },
} as const;

export type PlayCapName = keyof typeof PLAY_CAPS;
export const PLAY_CAP_NAMES = Object.keys(PLAY_CAPS) as PlayCapName[];

/** A game's caps, each as set or (absent, null) its default. */
export type PlayCaps = Record<PlayCapName, number>;

/** The cap in force for a stored value: the value, or the default when the game set none. */
export const capOrDefault = (name: PlayCapName, value: number | null | undefined): number =>
  value ?? PLAY_CAPS[name].default;

/** One line per cap, for the OpenAPI text: its default and its maximum. */
export const capDescription = (name: PlayCapName, what: string) =>
  `${what}. Default ${PLAY_CAPS[name].default.toLocaleString('en-US')} (not set, or null), at most ` +
  `${PLAY_CAPS[name].max.toLocaleString('en-US')}.`;
