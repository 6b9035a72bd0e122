// A payout run's "Verify" button (the economy page's settlements, the tournaments page's prizes): it loads the
// verification (console/src/verify.tsx, and through it the SDK's verifier) on the first click only, so neither
// the first load nor a page that is only read carries them.
import { useState } from 'preact/hooks';
import { ErrorBox, Loading, useAsync } from './ui.js';
import type { RunRef } from './verify.js';

const loadVerification = () => import('./verify.js');

const Loaded = (props: { gameId: string; run: RunRef; vault?: string | null }) => {
  const [module, retry] = useAsync(loadVerification, []);
  if (module.state === 'loading') return <Loading what="the verifier" />;
  if (module.state === 'error') return <ErrorBox error={module.error} retry={retry} />;
  const { RunVerification } = module.value;
  return <RunVerification {...props} />;
};

/** `vault`: the game's vault when the page has it (the pool's); else the verification reads the pool. */
export const VerifyButton = (props: {
  gameId: string;
  run: RunRef;
  vault?: string | null;
  label: string;
}) => {
  const [open, setOpen] = useState(false);
  const { label, ...run } = props;
  return (
    <div class="verify">
      {/* One name whether open or not (aria-expanded tells which), and it starts with the word shown. */}
      <button type="button" aria-expanded={open} onClick={() => setOpen(!open)} aria-label={label}>
        Verify
      </button>
      {open ? <Loaded {...run} /> : null}
    </div>
  );
};
