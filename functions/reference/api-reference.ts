import { apiReferenceContract, type ReferencePage, referencePage } from '../../lib/api/reference/index.js';
import { respond } from '../../lib/http/response.js';
import { route } from '../../lib/http/route.js';

const SPEC_URL = '/api-reference-json';
// Built on the first request and kept for the container's life: module load stays as cheap as any route's.
let page: ReferencePage | undefined;

export const handler = route(apiReferenceContract, async () => {
  page ??= referencePage(SPEC_URL);
  return respond(200, page.html, {
    'Content-Security-Policy': page.policy,
    'cache-control': 'public, max-age=300',
  });
});
