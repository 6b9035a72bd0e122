// A secret key shown once: never stored by the console, gone when the panel is dismissed.
import { useState } from 'preact/hooks';

export const SecretOnce = ({
  apiKey,
  secretKey,
  onDone,
}: {
  apiKey: string;
  secretKey: string;
  onDone: () => void;
}) => {
  const [copied, setCopied] = useState<string | null>(null);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(secretKey);
      setCopied('Copied to the clipboard.');
    } catch {
      setCopied('Copy failed: select the key and copy it by hand.');
    }
  };
  return (
    <section class="secret" aria-labelledby="secret-title">
      <h2 id="secret-title">Your new secret key</h2>
      <p>
        Shown this once: store it in your backend's secret store now. The console does not keep it, and the
        previous secret no longer works.
      </p>
      <dl>
        <dt>API key</dt>
        <dd>
          <code>{apiKey}</code>
        </dd>
        <dt>Secret key</dt>
        <dd>
          <code id="secret-value">{secretKey}</code>
        </dd>
      </dl>
      <button type="button" onClick={() => void copy()}>
        Copy secret key
      </button>{' '}
      <button type="button" onClick={onDone}>
        I stored it
      </button>
      <p role="status">{copied}</p>
    </section>
  );
};
