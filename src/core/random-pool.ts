import { randomBytes } from 'node:crypto';

/** Bytes drawn from the CSPRNG at a time. */
const POOL_BYTES = 4096;

let pool = Buffer.alloc(0);
let offset = 0;

/**
 * `size` bytes from the CSPRNG, drawn 4 KiB at a time: each `randomBytes` call costs a trip into OpenSSL's generator
 * whatever its size (~36 µs per 12-byte id on this project's benchmark VM, against a fraction of that per id from a
 * pool), as Node's own `randomUUID` pools for the same reason. Each byte is handed out once; a returned buffer is
 * never written again (a spent pool is replaced, not refilled in place).
 */
export function poolRandomBytes(size: number): Buffer {
  if (size > POOL_BYTES) return randomBytes(size);
  if (offset + size > pool.length) {
    pool = randomBytes(POOL_BYTES);
    offset = 0;
  }
  const bytes = pool.subarray(offset, offset + size);
  offset += size;
  return bytes;
}
