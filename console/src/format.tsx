// Times in the user's zone (UTC on hover) and amounts in SOL and USD (lamports on hover).
const LAMPORTS_PER_SOL = 1_000_000_000;

const local = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

export const Time = ({ iso }: { iso: string | null | undefined }) => {
  if (!iso) return <span>–</span>;
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return <span>{iso}</span>;
  return (
    <time dateTime={at.toISOString()} title={`${at.toISOString().replace('T', ' ').slice(0, 19)} UTC`}>
      {local.format(at)}
    </time>
  );
};

export const sol = (lamports: number | string) => Number(lamports) / LAMPORTS_PER_SOL;

const solText = (lamports: number | string) =>
  `${sol(lamports).toLocaleString(undefined, { maximumFractionDigits: 6 })} SOL`;

/** An amount in SOL, with its USD value at `solUsd` when a price is known; the lamports on hover. */
export const Sol = ({ lamports, solUsd }: { lamports: number | string; solUsd?: number | null }) => {
  const usd =
    solUsd === undefined || solUsd === null
      ? ''
      : ` (${(sol(lamports) * solUsd).toLocaleString(undefined, { style: 'currency', currency: 'USD' })})`;
  return (
    <span class="amount" title={`${BigInt(lamports).toLocaleString()} lamports`}>
      {solText(lamports)}
      {usd}
    </span>
  );
};

export const usd = (value: number) => value.toLocaleString(undefined, { style: 'currency', currency: 'USD' });

/** Long identifiers shortened for tables, whole on hover. */
export const Short = ({ value }: { value: string | null | undefined }) =>
  value ? (
    <span class="mono" title={value}>
      {value.length > 14 ? `${value.slice(0, 6)}…${value.slice(-6)}` : value}
    </span>
  ) : (
    <span>–</span>
  );

/**
 * A player as the studio knows them: the display name, else the studio's identifier (`playerId`), both when both
 * are set; the Arc ID one click away (a disclosure), and shown alone only when the API gives nothing else.
 * `href` links the name (the player's page).
 */
export const PlayerName = ({
  arcId,
  playerId,
  displayName,
  href,
}: {
  arcId: string;
  playerId: string | null;
  displayName: string | null;
  href?: string;
}) => {
  const known = displayName ?? playerId;
  const name = known ?? arcId;
  return (
    <span class="player-name">
      {href ? (
        <a href={href} class={known ? undefined : 'mono'}>
          {name}
        </a>
      ) : (
        <span class={known ? undefined : 'mono'}>{name}</span>
      )}
      {displayName && playerId ? <span class="hint"> ({playerId})</span> : null}
      {known ? (
        <details class="arc-id">
          <summary>
            Arc ID<span class="visually-hidden"> of {name}</span>
          </summary>
          <code>{arcId}</code>
        </details>
      ) : null}
    </span>
  );
};
