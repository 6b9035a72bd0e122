import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { referencePage, SWAGGER_ASSETS } from '../../lib/api/reference/page.js';
import { functionsConfig } from '../helpers/deploy-config.js';

const config = { functions: functionsConfig() };

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

describe('the reference page', () => {
  it('ships Swagger UI in the apiReference zip where the page resolves it (node_modules/, next to the bundle)', () => {
    const patterns = config.functions.apiReference?.package?.patterns ?? [];
    for (const specifier of Object.values(SWAGGER_ASSETS))
      expect(patterns).toContain(`node_modules/${specifier}`);
    // No other function carries them.
    for (const [name, fn] of Object.entries(config.functions)) {
      if (name !== 'apiReference') expect(JSON.stringify(fn.package ?? {}), name).not.toContain('swagger');
    }
  });

  it('runs only its own inline scripts, allowed by hash', () => {
    const { html, policy } = referencePage('/api-reference-json');
    const scripts = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1] ?? '');
    expect(scripts).toHaveLength(2);
    expect(scripts[0]).toContain('SwaggerUIBundle');
    const scriptSrc = policy.split('; ').find((d) => d.startsWith('script-src ')) ?? '';
    expect(scriptSrc).toBe(`script-src ${scripts.map(sha256).join(' ')}`);
    expect(policy).toContain("default-src 'none'");
    expect(html).not.toMatch(/<script[^>]*\bsrc=|<link[^>]*\bhref=/);
  });
});
