import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/**
 * Swagger UI's two files, read at run time rather than inlined into the bundle (1.9 MB of string literals that
 * every cold start compiled). serverless.yml ships them in the apiReference zip at these paths under
 * `node_modules/`, next to the bundle's folder, where Node's resolution finds them; `serverless offline` runs the
 * bundle from `.esbuild/` inside the project, so the same resolution finds the project's node_modules.
 */
export const SWAGGER_ASSETS = {
  script: 'swagger-ui-dist/swagger-ui-bundle.js',
  style: 'swagger-ui-dist/swagger-ui.css',
} as const;

const readAsset = (specifier: string) =>
  readFileSync(createRequire(import.meta.url).resolve(specifier), 'utf8');

// A `</script` inside inlined JavaScript would end the script element early.
const inlineScript = (source: string) => source.replaceAll('</script', '<\\/script');

/**
 * Runs in the page: "Try it out" requests are signed with the API key and secret typed into the page (HMAC), with
 * WebCrypto, in the strict form: the body's sha256 (`x-content-sha256`, also for an empty body) and the canonical
 * query are signed, so the page works with keys that require strict signing too. The credentials stay in the two
 * inputs: never stored, never sent. A request that already carries an Authorization header (a bearer token entered in
 * Swagger UI's Authorize dialog) is left as it is; the document itself (`loadSpec`) is fetched unsigned.
 * `canonicalQuery` and `signedPath` (the path signed decoded) are lib/core/hmac-signing.ts's, in the page's JavaScript.
 */
export const PAGE_SIGNER = String.raw`
const hex = (bytes) => Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, '0')).join('');
const utf8 = (text) => new TextEncoder().encode(text);
const typed = (id) => document.getElementById(id).value.trim();
const rfc3986 = (value) => encodeURIComponent(value).replace(/[!'()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase());
const byCodeUnit = (a, b) => (a < b ? -1 : a > b ? 1 : 0);
const canonicalQuery = (search) => Array.from(new URLSearchParams(search), ([n, v]) => [rfc3986(n), rfc3986(v)])
  .sort((a, b) => byCodeUnit(a[0], b[0]) || byCodeUnit(a[1], b[1]))
  .map(([n, v]) => n + '=' + v)
  .join('&');
const signedPath = (path) => path.replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) => { try { return decodeURIComponent(run); } catch { return run; } });
const signHmac = async (request) => {
  const apiKey = typed('hmac-api-key');
  const secret = typed('hmac-secret');
  if (request.loadSpec || !apiKey || !secret) return request;
  const headers = request.headers || (request.headers = {});
  if (Object.keys(headers).some((name) => name.toLowerCase() === 'authorization')) return request;
  if (!crypto.subtle) throw new Error('WebCrypto needs https or localhost to sign requests');
  const timestamp = Date.now();
  const url = new URL(request.url, location.href);
  const body = typeof request.body === 'string' ? request.body : '';
  const bodySha256 = hex(await crypto.subtle.digest('SHA-256', utf8(body)));
  headers['x-content-sha256'] = bodySha256;
  const parts = [request.method.toLowerCase(), signedPath(url.pathname).toLowerCase(), String(timestamp), bodySha256, canonicalQuery(url.search)];
  const key = await crypto.subtle.importKey('raw', utf8(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const signature = hex(await crypto.subtle.sign('HMAC', key, utf8(parts.join('\n'))));
  headers.Authorization = 'HMAC-SHA256 apiKey=' + apiKey + ' signature=' + signature + ' timestamp=' + timestamp;
  headers['x-auth-provider'] = 'hmac';
  return request;
};
`;

const initScript = (specUrl: string) =>
  `${PAGE_SIGNER}window.ui = SwaggerUIBundle({ url: ${JSON.stringify(specUrl)}, dom_id: '#swagger-ui', deepLinking: true, tryItOutEnabled: true, requestInterceptor: signHmac });`;

/** Where the integrator types the credentials the page signs with. */
const CREDENTIALS = `<section id="hmac-credentials" style="max-width:1460px;margin:16px auto;padding:0 20px;font-family:sans-serif;font-size:14px">
<strong>HMAC requests</strong>: enter an API key and its secret key (from <code>GET /user/me</code>); "Try it out"
signs each request in this page with them (WebCrypto), bound to its body and its query (the strict form, which every
key accepts). They stay in this page: never stored, never sent.
<label style="margin-left:12px">API key <input id="hmac-api-key" size="38" autocomplete="off" spellcheck="false"></label>
<label style="margin-left:12px">Secret key <input id="hmac-secret" type="password" size="40" autocomplete="off"></label>
</section>`;

const hash = (source: string) => `'sha256-${createHash('sha256').update(source).digest('base64')}'`;

export interface ReferencePage {
  html: string;
  /**
   * The page's Content-Security-Policy: only its own two inline scripts (by hash) run; Swagger UI styles itself
   * inline, and talks to this API only.
   */
  policy: string;
}

/**
 * The interactive reference page: Swagger UI with its assets inlined (no CDN), reading `specUrl`. Reads ~1.9 MB
 * and hashes the script: call it on the first request, not at module load, and keep the result.
 */
export const referencePage = (specUrl: string): ReferencePage => {
  const script = inlineScript(readAsset(SWAGGER_ASSETS.script));
  const init = initScript(specUrl);
  const policy = [
    "default-src 'none'",
    `script-src ${hash(script)} ${hash(init)}`,
    "style-src 'unsafe-inline'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Arcadia API reference</title>
<style>${readAsset(SWAGGER_ASSETS.style)}</style>
</head>
<body>
${CREDENTIALS}
<div id="swagger-ui"></div>
<script>${script}</script>
<script>${init}</script>
</body>
</html>`;
  return { html, policy };
};
