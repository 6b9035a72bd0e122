/** A bearer token from the local identity provider the test stack runs (IDP_URL). */
export const idpToken = async (name: string): Promise<string> => {
  const url = process.env.IDP_URL;
  if (!url) throw new Error('IDP_URL is not set: the test stack did not start the local identity provider');
  const response = await fetch(new URL('/token', url), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name }),
  });
  if (!response.ok) throw new Error(`local IdP answered ${response.status}`);
  return ((await response.json()) as { token: string }).token;
};
