// Hash routes (#/games, #/players?game=…): the console is static files, served from any path.
import { useEffect, useState } from 'preact/hooks';

export interface Route {
  parts: string[];
  query: URLSearchParams;
}

const parse = (): Route => {
  // Split at the first `?` only: a parameter's value may hold one (a redirect URI written unencoded).
  const hash = location.hash.replace(/^#\/?/, '');
  const at = hash.indexOf('?');
  const path = at < 0 ? hash : hash.slice(0, at);
  return {
    parts: path.split('/').filter(Boolean),
    query: new URLSearchParams(at < 0 ? '' : hash.slice(at + 1)),
  };
};

export const useRoute = (): Route => {
  const [route, setRoute] = useState(parse);
  useEffect(() => {
    const update = () => setRoute(parse());
    addEventListener('hashchange', update);
    return () => removeEventListener('hashchange', update);
  }, []);
  return route;
};

export const href = (path: string, query: Record<string, string | undefined> = {}) => {
  const search = new URLSearchParams(
    Object.entries(query).filter((e): e is [string, string] => Boolean(e[1])),
  ).toString();
  return `#/${path}${search ? `?${search}` : ''}`;
};

export const go = (path: string, query: Record<string, string | undefined> = {}) => {
  location.hash = href(path, query);
};
