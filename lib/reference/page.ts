import swaggerCss from 'swagger-ui-dist/swagger-ui.css' with { type: 'text' };
import swaggerBundle from 'swagger-ui-dist/swagger-ui-bundle.js' with { type: 'text' };

// A `</script` inside inlined JavaScript would end the script element early.
const inlineScript = (source: string) => source.replaceAll('</script', '<\\/script');

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
<script>
window.ui = SwaggerUIBundle({ url: ${JSON.stringify(specUrl)}, dom_id: '#swagger-ui', deepLinking: true, tryItOutEnabled: true });
</script>
</body>
</html>`;
