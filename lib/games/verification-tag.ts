import { createHash, timingSafeEqual } from 'node:crypto';
import { Parser } from 'htmlparser2';

// Domain-ownership proof for POST /games/claim-ownership: the game page's <head> carries
// <meta name="arcadia-verification" content="<apiKey>">. Parsed with a real HTML tokenizer so comments,
// <script>/<title> text and attribute quoting cannot fake or hide a tag the way a regex would allow.

export const VERIFICATION_META_NAME = 'arcadia-verification';

/** Elements the HTML parser keeps in <head>; any other start tag (or text) opens the body implicitly. */
const HEAD_ELEMENTS = new Set([
  'base',
  'basefont',
  'bgsound',
  'link',
  'meta',
  'noframes',
  'noscript',
  'script',
  'style',
  'template',
  'title',
]);

/** Head elements whose content never becomes head elements (raw text, inert template, noscript as scripting browsers see it). */
const INERT_ELEMENTS = new Set(['noframes', 'noscript', 'script', 'style', 'template', 'title']);

const digest = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();

/** Constant-time equality that does not leak the length either (both sides are hashed first). */
const sameSecret = (a: string, b: string): boolean => timingSafeEqual(digest(a), digest(b));

/** True when the HTML's <head> has <meta name="arcadia-verification" content="<apiKey>"> (name case-insensitive, content compared exactly after trimming, constant-time). */
export const hasVerificationTag = (html: string, apiKey: string): boolean => {
  const expected = apiKey.trim();
  if (expected === '') return false;

  // Follows the HTML insertion modes loosely: <head> may be explicit or implied by a head element
  // before any body content; the head ends at </head>, <body>, or the first body element/text.
  // Held in an object: the parser callbacks mutate it, which control-flow narrowing cannot see.
  const scan = { headEnded: false, found: false };
  // Depth inside elements whose content is not part of the head's DOM (raw text, template, noscript).
  let inertDepth = 0;

  const parser = new Parser(
    {
      onopentag(name, attribs) {
        if (scan.headEnded || name === 'html') return;
        if (INERT_ELEMENTS.has(name)) inertDepth++;
        if (inertDepth > (INERT_ELEMENTS.has(name) ? 1 : 0)) return;
        if (name === 'head') return;
        if (!HEAD_ELEMENTS.has(name)) {
          scan.headEnded = true;
          parser.pause();
          return;
        }
        if (name !== 'meta') return;
        const metaName = attribs.name?.trim().toLowerCase();
        const content = attribs.content;
        // Compare every candidate (no short-circuit) so timing does not reveal which tag matched.
        if (metaName === VERIFICATION_META_NAME && content !== undefined) {
          scan.found = sameSecret(content.trim(), expected) || scan.found;
        }
      },
      onclosetag(name) {
        if (scan.headEnded) return;
        if (INERT_ELEMENTS.has(name)) {
          if (inertDepth > 0) inertDepth--;
          return;
        }
        if (name === 'head' && inertDepth === 0) {
          scan.headEnded = true;
          parser.pause();
        }
      },
      ontext(text) {
        if (scan.headEnded || inertDepth > 0 || text.trim() === '') return;
        scan.headEnded = true;
        parser.pause();
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.write(html);
  if (!scan.headEnded) parser.end();
  return scan.found;
};
