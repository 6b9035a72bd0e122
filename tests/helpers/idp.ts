import { fetchLocalToken } from '../../scripts/token.js';

/** A bearer token from the local identity provider the test stack runs (IDP_URL). */
export const idpToken = async (name: string): Promise<string> => {
  const url = process.env.IDP_URL;
  if (!url) throw new Error('IDP_URL is not set: the test stack did not start the local identity provider');
  return (await fetchLocalToken(name, url)).token;
};
