// The one reading behind every "expired, send again" decision: height, then the look, then the height again.
import { describe, expect, it } from 'vitest';
import { fateOf, type Sighting, statusSighting } from '../../lib/chain/fate.js';

/** A chain whose heights are read in turn from `heights`, recording the order of reads. */
const scripted = (heights: number[], seen: Sighting | { kind: 'processed' }) => {
  const reads: string[] = [];
  return {
    reads,
    chain: {
      getBlockHeight: async () => {
        reads.push('height');
        return heights.shift() ?? Number.NaN;
      },
    },
    look: async () => {
      reads.push('look');
      return seen;
    },
  };
};

describe('fateOf', () => {
  it('reads the height before the look, and decides expired only from a height read before it', async () => {
    const past = scripted([101, 102], { kind: 'unseen' });
    expect(await fateOf(past.chain, 100, past.look)).toEqual({ kind: 'expired' });
    expect(past.reads).toEqual(['height', 'look', 'height']);

    // Not past the lifetime when the look found nothing: it may have landed right after (or still land).
    const racing = scripted([100, 500], { kind: 'unseen' });
    expect(await fateOf(racing.chain, 100, racing.look)).toEqual({ kind: 'pending' });
    expect(racing.reads).toEqual(['height', 'look']);
  });

  it('answers landed or failed from the look whatever the height, and pending while only processed', async () => {
    const landed = scripted([900], { kind: 'landed' });
    expect(await fateOf(landed.chain, 100, landed.look)).toEqual({ kind: 'landed' });
    const failed = scripted([900], { kind: 'failed', err: { InstructionError: [0, 'X'] } });
    expect(await fateOf(failed.chain, 100, failed.look)).toEqual({
      kind: 'failed',
      err: { InstructionError: [0, 'X'] },
    });
    const processed = scripted([900, 900], { kind: 'processed' });
    expect(await fateOf(processed.chain, 100, processed.look)).toEqual({ kind: 'pending' });
  });

  it('does not conclude when the second height is lower than the first (answers from nodes apart)', async () => {
    const apart = scripted([150, 120], { kind: 'unseen' });
    expect(await fateOf(apart.chain, 100, apart.look)).toEqual({ kind: 'pending' });
  });

  it('maps signature statuses', () => {
    expect(statusSighting({ status: 'unknown' })).toEqual({ kind: 'unseen' });
    expect(statusSighting({ status: 'processed', slot: 1 })).toEqual({ kind: 'processed' });
    expect(statusSighting({ status: 'confirmed', slot: 1 })).toEqual({ kind: 'landed' });
    expect(statusSighting({ status: 'finalized', slot: 1 })).toEqual({ kind: 'landed' });
    expect(statusSighting({ status: 'failed', slot: 1, err: 'e' })).toEqual({ kind: 'failed', err: 'e' });
  });
});
