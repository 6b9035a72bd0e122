import type { Scope } from '../core/scopes.js';

/** How long an authorization code can be redeemed (RFC 9700 advises short-lived codes). */
export const CODE_TTL_MS = 60_000;
/** How long a code's record stays after issue, so that a replay is still recognised (and revokes). */
export const CODE_RECORD_TTL_SECONDS = 600;
/** A grant's access token lifetime. Revocation doesn't wait for it: every use reads the grant. */
export const ACCESS_TOKEN_TTL_SECONDS = 600;
export const MAX_CLIENTS_PER_GAME = 10;
export const MAX_REDIRECT_URIS = 10;
export const MAX_ORIGINS = 10;

/** A game's OAuth client: a public client (no secret), since a game's page is a browser app. */
export interface OAuthClient {
  clientId: string;
  gameId: string;
  name: string;
  /** Exact redirect URIs; an authorization request must name one of them, byte for byte. */
  redirectUris: string[];
  /** Origins that may receive the code by postMessage (the popup variant). */
  origins: string[];
  createdBy: string;
  createdAt: string;
}

/** A player's grant to a game: what the game may do for them, until they revoke it. */
export interface Grant {
  arcId: string;
  gameId: string;
  grantId: string;
  clientId: string;
  scopes: Scope[];
  status: 'active' | 'revoked';
  /** The generation of the one refresh token that is current; older ones are replays. */
  refreshGen: number;
  createdAt: string;
  updatedAt: string;
  revokedAt?: string;
  revokedReason?: 'player' | 'code_replay' | 'refresh_replay';
}

/** An authorization code's record (its hash is the key; the code itself is never stored). */
export interface CodeRecord {
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  arcId: string;
  gameId: string;
  grantId: string;
  scopes: Scope[];
  expiresAtMs: number;
  used?: boolean;
}
