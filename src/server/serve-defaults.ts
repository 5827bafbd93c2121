/**
 * Defaults of `petstore serve`, in a module without imports: the command's
 * declaration needs them for --help, and must not load the server to get them.
 */
export const DEFAULT_FILE = "pets.json";
export const DEFAULT_HOST = "127.0.0.1";
export const DEFAULT_PORT = 4010;
/** Comma-separated key specs, used when no --key or --keys-file gives one. */
export const KEYS_VARIABLE = "PETSTORE_SERVE_KEYS";
/** The admin token when --admin-token is not given (kept out of `ps`). */
export const ADMIN_TOKEN_VARIABLE = "PETSTORE_SERVE_ADMIN_TOKEN";
export const DEFAULT_JOURNAL_SIZE = 1000;
export const MAX_JOURNAL_SIZE = 100_000;
/** 429s tolerated in one limited period, then a ban of ten minutes (--ban-after, --ban-seconds). */
export const DEFAULT_BAN_POLICY = { banAfter: 10, banMs: 600_000 };
