// The signatures a wire transaction carries, read without kit's transaction codecs: the claim status (a reader of
// the chain) needs them, and the package test keeps kit's transaction and message code out of readers' bundles.
// The wire format's first field is the signatures: a compact-u16 count, then 64 bytes each (zeros: not signed yet).
import bs58 from 'bs58';

const SIGNATURE_BYTES = 64;

/** The signatures a base64 wire transaction already carries, base58 (its empty slots left out). */
export const presentSignatures = (wire: string): string[] => {
  const bytes = Buffer.from(wire, 'base64');
  let count = 0;
  let offset = 0;
  for (let shift = 0; ; shift += 7) {
    if (shift > 14 || offset >= bytes.length) throw new Error('malformed wire transaction: signature count');
    const byte = bytes[offset++] ?? 0;
    count |= (byte & 0x7f) << shift;
    if ((byte & 0x80) === 0) break;
  }
  if (offset + count * SIGNATURE_BYTES > bytes.length)
    throw new Error('malformed wire transaction: signatures');
  const signatures: string[] = [];
  for (let i = 0; i < count; i++) {
    const signature = bytes.subarray(offset + i * SIGNATURE_BYTES, offset + (i + 1) * SIGNATURE_BYTES);
    if (signature.some((b) => b !== 0)) signatures.push(bs58.encode(signature));
  }
  return signatures;
};
