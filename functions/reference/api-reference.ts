import { respond } from '../../lib/http/response.js';
import { route } from '../../lib/http/route.js';
import { apiReferenceContract } from '../../lib/reference/contracts.js';
import { referencePage, referencePagePolicy } from '../../lib/reference/page.js';

const SPEC_URL = '/api-reference-json';
const page = referencePage(SPEC_URL);
const headers = {
  'Content-Security-Policy': referencePagePolicy(SPEC_URL),
  'cache-control': 'public, max-age=300',
};

export const handler = route(apiReferenceContract, async () => respond(200, page, headers));
