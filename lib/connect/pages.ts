// What GET /oauth/authorize answers a request it refuses on the spot: a page that says why and links nowhere.
/** Neither the refusal nor the redirect may be framed (clickjacking), and the page runs no script. */
export const AUTHORIZE_HEADERS = {
  'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
  'X-Frame-Options': 'DENY',
  // The popup variant needs its opener: a same-origin COOP (the security headers' default) on this hop severs it.
  'Cross-Origin-Opener-Policy': 'unsafe-none',
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
} as const;

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export const refusalPage = (message: string): string =>
  [
    '<!doctype html><html lang="en"><head><meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<title>Connect with Arcadia: request refused</title>',
    '<style>body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem}</style>',
    '</head><body><main><h1>This connect request can’t go on</h1>',
    `<p>${escapeHtml(message)}.</p>`,
    '<p>Nothing was shared with the game. Go back to the game and let its studio know.</p>',
    '</main></body></html>',
  ].join('');
