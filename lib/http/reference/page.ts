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

const initScript = (specUrl: string) =>
  `window.ui = SwaggerUIBundle({ url: ${JSON.stringify(specUrl)}, dom_id: '#swagger-ui', deepLinking: true, tryItOutEnabled: true });`;

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
<div id="swagger-ui"></div>
<script>${script}</script>
<script>${init}</script>
</body>
</html>`;
  return { html, policy };
};
