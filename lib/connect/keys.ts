import { settings } from '../core/config.js';

/**
 * Connect with Arcadia's items (docs/connect.md). In the UsersTable:
 * - an OAuth client by id:            pk=OAUTHCLIENT#<clientId>   sk=CLIENT          (the token endpoint's read)
 * - a game's clients:                 pk=GAMECLIENTS#<gameId>     sk=CLIENT#<clientId> (the same record, listed)
 *     both written and deleted in one transaction; at most MAX_CLIENTS_PER_GAME a game.
 * - a player's grant to a game:       pk=USER#<arcId>             sk=GRANT#<gameId>
 *     one a player and game; connecting again replaces it (a new grantId ends what the old one issued). Every
 *     access token's use reads it; refreshes rotate `refreshGen` on it. Query begins_with(sk, 'GRANT#') lists them.
 * In the EphemeralTable (TTL):
 * - an authorization code:            pk=OAUTHCODE#<sha256 of the code>
 *     redeemable for 60 s, kept 10 minutes so that a replay is recognised (and revokes its grant).
 */
export const connectKeys = {
  client: (clientId: string) => ({ pk: `OAUTHCLIENT#${clientId}`, sk: 'CLIENT' }),
  gameClient: (gameId: string, clientId: string) => ({
    pk: `GAMECLIENTS#${gameId}`,
    sk: `CLIENT#${clientId}`,
  }),
  gameClientsPartition: (gameId: string) => `GAMECLIENTS#${gameId}`,
  grant: (arcId: string, gameId: string) => ({ pk: `USER#${arcId}`, sk: `GRANT#${gameId}` }),
  userPartition: (arcId: string) => `USER#${arcId}`,
  GRANT_PREFIX: 'GRANT#',
  CLIENT_PREFIX: 'CLIENT#',
  code: (codeHash: string) => ({ pk: `OAUTHCODE#${codeHash}` }),
};

export const usersTable = (): string => settings().USERS_TABLE;
export const ephemeralTable = (): string => settings().EPHEMERAL_TABLE;
