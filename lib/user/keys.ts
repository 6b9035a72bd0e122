/**
 * UsersTable keys. Access patterns:
 * - profile by Arc ID:            pk=USER#<arcId>          sk=PROFILE
 * - Arc ID by identifier key:     pk=IDENT#<kind>:<value>  sk=IDENT   (kinds: did, sol, eth, x, email)
 * - Arc ID + secret by API key:   pk=APIKEY#<apiKey>       sk=APIKEY  (one read authenticates a request; it also
 *     holds `strictSigning`, the key's choice of the strict signing form)
 * - the import's pace at the provider, per app: pk=PACE#idp-user-creations#<appId> sk=PACE (import-pace.ts)
 * Identifier and API key items are written with attribute_not_exists conditions, so each maps to one user.
 */
export const userKeys = {
  profile: (arcId: string) => ({ pk: `USER#${arcId}`, sk: 'PROFILE' }),
  identifier: (key: string) => ({ pk: `IDENT#${key}`, sk: 'IDENT' }),
  apiKey: (apiKey: string) => ({ pk: `APIKEY#${apiKey}`, sk: 'APIKEY' }),
  importPace: (appId: string) => ({ pk: `PACE#idp-user-creations#${appId}`, sk: 'PACE' }),
};
