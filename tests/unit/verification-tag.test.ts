import { describe, expect, it } from 'vitest';
import { hasVerificationTag, VERIFICATION_META_NAME } from '../../lib/games/verification-tag.js';

const KEY = '3f6c1b9e-8d2a-4e57-9b0c-7a1d2e3f4a5b';

const page = (head: string, body = '<h1>My game</h1>') =>
  `<!doctype html><html><head><title>Game</title>${head}</head><body>${body}</body></html>`;

const tag = (content = KEY) => `<meta name="${VERIFICATION_META_NAME}" content="${content}">`;

describe('hasVerificationTag', () => {
  it('finds the tag in <head>', () => {
    expect(hasVerificationTag(page(tag()), KEY)).toBe(true);
  });

  it('rejects a different key, a prefix of the key, and an empty content', () => {
    expect(hasVerificationTag(page(tag('00000000-0000-0000-0000-000000000000')), KEY)).toBe(false);
    expect(hasVerificationTag(page(tag(KEY.slice(0, 8))), KEY)).toBe(false);
    expect(hasVerificationTag(page(tag(`${KEY}x`)), KEY)).toBe(false);
    expect(hasVerificationTag(page(tag('')), KEY)).toBe(false);
  });

  it('never matches an empty API key', () => {
    expect(hasVerificationTag(page(tag('')), '')).toBe(false);
    expect(hasVerificationTag(page(tag('  ')), '  ')).toBe(false);
  });

  it('compares the key case-sensitively', () => {
    expect(hasVerificationTag(page(tag(KEY.toUpperCase())), KEY)).toBe(false);
  });

  it('ignores a tag in <body>', () => {
    expect(hasVerificationTag(page('', tag()), KEY)).toBe(false);
  });

  it('ignores a tag after </head>, even before <body>', () => {
    expect(hasVerificationTag(`<html><head><title>x</title></head>${tag()}<body></body></html>`, KEY)).toBe(
      false,
    );
  });

  it('matches the name case-insensitively', () => {
    expect(hasVerificationTag(page(`<META NAME="Arcadia-Verification" CONTENT="${KEY}">`), KEY)).toBe(true);
  });

  it('accepts any attribute order, quoting style and extra attributes', () => {
    expect(hasVerificationTag(page(`<meta content="${KEY}" name="arcadia-verification">`), KEY)).toBe(true);
    expect(
      hasVerificationTag(page(`<meta data-x=1 content='${KEY}' id=v name=arcadia-verification>`), KEY),
    ).toBe(true);
    expect(hasVerificationTag(page(`<meta name=arcadia-verification content=${KEY}>`), KEY)).toBe(true);
  });

  it('accepts a self-closing tag', () => {
    expect(hasVerificationTag(page(`<meta name="arcadia-verification" content="${KEY}" />`), KEY)).toBe(true);
    expect(hasVerificationTag(page(`<meta name="arcadia-verification" content="${KEY}"/>`), KEY)).toBe(true);
  });

  it('trims whitespace around the content and the key', () => {
    expect(hasVerificationTag(page(tag(`  ${KEY}\n`)), KEY)).toBe(true);
    expect(hasVerificationTag(page(tag(KEY)), ` ${KEY} `)).toBe(true);
  });

  it('decodes character references in the content', () => {
    const encoded = [...KEY].map((c) => `&#${c.codePointAt(0)};`).join('');
    expect(hasVerificationTag(page(tag(encoded)), KEY)).toBe(true);
  });

  it('ignores a tag inside a comment', () => {
    expect(hasVerificationTag(page(`<!-- ${tag()} -->`), KEY)).toBe(false);
  });

  it('ignores a tag inside script, style, title, template or noscript', () => {
    expect(hasVerificationTag(page(`<script>document.write('${tag()}')</script>`), KEY)).toBe(false);
    expect(hasVerificationTag(page(`<style>/* ${tag()} */</style>`), KEY)).toBe(false);
    expect(hasVerificationTag(`<html><head><title>${tag()}</title></head></html>`, KEY)).toBe(false);
    expect(hasVerificationTag(page(`<template>${tag()}</template>`), KEY)).toBe(false);
    expect(hasVerificationTag(page(`<noscript>${tag()}</noscript>`), KEY)).toBe(false);
  });

  it('keeps scanning the head after script, template and noscript', () => {
    const head = `<script>var a = "<div>";</script><template><div>x</div></template><noscript><img src=x></noscript>`;
    expect(hasVerificationTag(page(`${head}${tag()}`), KEY)).toBe(true);
  });

  it('counts any matching tag among several', () => {
    const head = `${tag('wrong')}<meta name="description" content="${KEY}">${tag()}${tag('also-wrong')}`;
    expect(hasVerificationTag(page(head), KEY)).toBe(true);
  });

  it('ignores other meta names and http-equiv/property carrying the key', () => {
    const head = `<meta property="arcadia-verification" content="${KEY}"><meta http-equiv="arcadia-verification" content="${KEY}"><meta name="arcadia-verification-x" content="${KEY}">`;
    expect(hasVerificationTag(page(head), KEY)).toBe(false);
  });

  it('finds the tag in an implied head (no <head> tags, as HTML allows)', () => {
    expect(hasVerificationTag(`<!doctype html><title>Game</title>${tag()}<p>hello</p>`, KEY)).toBe(true);
  });

  it('ends an implied head at the first body content', () => {
    expect(hasVerificationTag(`<!doctype html><title>Game</title><p>hello</p>${tag()}`, KEY)).toBe(false);
    expect(hasVerificationTag(`<!doctype html>hello ${tag()}`, KEY)).toBe(false);
  });

  it('stops at </head>: nothing after it is parsed', () => {
    // A later tag cannot count, and unbalanced garbage after the head does not matter.
    const html = `<html><head>${tag()}</head><body><div><<<<${'<p>'.repeat(10_000)}`;
    expect(hasVerificationTag(html, KEY)).toBe(true);
  });

  it('handles empty and non-HTML input', () => {
    expect(hasVerificationTag('', KEY)).toBe(false);
    expect(hasVerificationTag('{"not":"html"}', KEY)).toBe(false);
    expect(hasVerificationTag(`<head>${tag()}`, KEY)).toBe(true); // unclosed head at end of input
  });
});
