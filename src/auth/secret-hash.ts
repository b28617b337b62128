/**
 * How the daemon keeps login secrets without keeping them: the admin password as a salted scrypt hash
 * (slow on purpose, because people choose guessable passwords) and the API key as a SHA-256 digest (it is
 * 32 random bytes, so a fast hash is as strong as a slow one). Every comparison is constant time.
 */
import { createHash, randomBytes, scrypt, timingSafeEqual } from "node:crypto";
import { HomeAgentError } from "../util/errors.js";

/**
 * 2^15 × 8 × 128 bytes = 32 MiB and ~0.1 s per hash on this machine: a home daemon logs in rarely. The
 * parameters are stored with each hash, so raising them later keeps old hashes readable.
 */
const SCRYPT = { N: 2 ** 15, r: 8, p: 1 };
const KEY_BYTES = 32;
const SALT_BYTES = 16;
/** Longer inputs are refused before hashing: a megabyte "password" would only cost CPU. */
export const MAX_SECRET_LENGTH = 1024;
/** Refuse stored parameters that would make one check take seconds or gigabytes (a hand-edited row). */
const MAX_N = 2 ** 20;

export const API_KEY_PREFIX = "ha_";

export class SecretHashError extends HomeAgentError {}

/** A random password a person can copy: 18 bytes, 24 base64url characters. */
export function randomPassword(): string {
  return randomBytes(18).toString("base64url");
}

/** A random API key: 32 bytes, recognisable by its prefix in a config file or a leak scanner. */
export function randomApiKey(): string {
  return `${API_KEY_PREFIX}${randomBytes(32).toString("base64url")}`;
}

/** A random 32-byte token (session ids, CSRF tokens). */
export function randomToken(): string {
  return randomBytes(32).toString("base64url");
}

/** `scrypt$N$r$p$<salt b64url>$<hash b64url>`. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const hash = await derive(password, salt, SCRYPT.N, SCRYPT.r, SCRYPT.p);
  return ["scrypt", SCRYPT.N, SCRYPT.r, SCRYPT.p, salt.toString("base64url"), hash.toString("base64url")].join("$");
}

/** False for a wrong password, an over-long one, or a stored hash this code cannot read. */
export async function passwordMatches(password: string, stored: string): Promise<boolean> {
  if (password.length > MAX_SECRET_LENGTH) return false;
  const [kind, n, r, p, salt, hash] = stored.split("$");
  const N = Number(n);
  const R = Number(r);
  const P = Number(p);
  const ok = kind === "scrypt" && [N, R, P].every(Number.isSafeInteger) && N > 1 && N <= MAX_N && R <= 32 && P <= 16;
  if (!ok || !salt || !hash) return false;
  const want = Buffer.from(hash, "base64url");
  if (want.length !== KEY_BYTES) return false;
  const got = await derive(password, Buffer.from(salt, "base64url"), N, R, P);
  return timingSafeEqual(got, want);
}

/** Hex SHA-256 of the key. */
export function hashApiKey(key: string): string {
  return createHash("sha256").update(key).digest("hex");
}

/** Compares digests of equal length, so neither the key's length nor its content leaks through timing. */
export function apiKeyMatches(key: string, storedHash: string): boolean {
  if (key.length > MAX_SECRET_LENGTH) return false;
  const want = Buffer.from(storedHash, "hex");
  const got = createHash("sha256").update(key).digest();
  return want.length === got.length && timingSafeEqual(got, want);
}

/** Constant-time equality of two tokens of any length (CSRF tokens). */
export function tokensEqual(a: string, b: string): boolean {
  const da = createHash("sha256").update(a).digest();
  const db = createHash("sha256").update(b).digest();
  return timingSafeEqual(da, db);
}

function derive(password: string, salt: Buffer, N: number, r: number, p: number): Promise<Buffer> {
  // scrypt needs 128·N·r bytes; allow twice that so Node's default 32 MiB cap never refuses our own params.
  const maxmem = 256 * N * r;
  return new Promise((resolve, reject) => {
    scrypt(password.normalize("NFC"), salt, KEY_BYTES, { N, r, p, maxmem }, (err, key) => {
      if (err)
        reject(new SecretHashError({ code: "auth_hash_failed", message: `scrypt failed: ${err.message}`, cause: err }));
      else resolve(key);
    });
  });
}
