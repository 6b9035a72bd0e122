import { createHash } from 'node:crypto';
import swaggerCss from 'swagger-ui-dist/swagger-ui.css' with { type: 'text' };
import swaggerBundle from 'swagger-ui-dist/swagger-ui-bundle.js' with { type: 'text' };

// A `</script` inside inlined JavaScript would end the script element early.
const inlineScript = (source: string) => source.replaceAll('</script', '<\\/script');

const initScript = (specUrl: string) =>
  `window.ui = SwaggerUIBundle({ url: ${JSON.stringify(specUrl)}, dom_id: '#swagger-ui', deepLinking: true, tryItOutEnabled: true });`;

const hash = (source: string) => `'sha256-${createHash('sha256').update(source).digest('base64')}'`;

/**
 * The page's Content-Security-Policy: only its own two inline scripts (by hash) run; Swagger UI styles itself
 * inline, and talks to this API only.
 */
export const referencePagePolicy = (specUrl: string): string =>
  [
    "default-src 'none'",
    `script-src ${hash(inlineScript(swaggerBundle))} ${hash(initScript(specUrl))}`,
    "style-src 'unsafe-inline'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');

/** The interactive reference page: Swagger UI with its assets inlined (no CDN), reading /api-reference-json. */
export const referencePage = (specUrl: string): string => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Arcadia API reference</title>
<style>${swaggerCss}</style>
</head>
<body>
<div id="swagger-ui"></div>
<script>${inlineScript(swaggerBundle)}</script>
<script>${initScript(specUrl)}</script>
</body>
</html>`;
