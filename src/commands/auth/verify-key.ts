/**
 * `auth login` checks a key before storing it: one `GET /pets?limit=1` to the
 * base URL the profile will use, retried as any request is. Accepted: the rate
 * limit the answer reports (the plan's limit of the window that binds). Any
 * failure stops the login with that failure's exit code, and nothing is stored:
 * a rejected key (401) is exit 3; a service that cannot be reached is exit 6,
 * as gh refuses a token it cannot validate, with `--no-verify` as the way out.
 */
import { EXIT, HttpError, PetstoreError } from "../../errors.js";
import type { SettingsFlags } from "../../profiles/resolve.js";
import type { Factory, SettingsOptions } from "../factory.js";
import { describeRateLimit } from "../rate-limit-summary.js";
import { requestOptionsFrom } from "../request-options.js";

const NO_VERIFY = "`--no-verify` stores the key without checking it";

function notStored(error: unknown): PetstoreError {
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof HttpError && error.status === 401) {
    return new PetstoreError(
      `the service rejected the key (401): ${message}; it was not stored`,
      EXIT.AUTH,
      "check that the whole key was copied, and that it is for this environment and base URL",
    );
  }
  const known = error instanceof PetstoreError ? error : undefined;
  const hint = known?.hint === undefined ? NO_VERIFY : `${known.hint}; ${NO_VERIFY}`;
  return new PetstoreError(
    `the key could not be checked: ${message}; it was not stored`,
    known?.exitCode ?? EXIT.UNEXPECTED,
    hint,
  );
}

/** Checks the key in `flags.apiKey`; returns the line to show, or throws what to report. */
export async function verifyKey(
  factory: Factory,
  flags: SettingsFlags,
  options: SettingsOptions,
): Promise<string> {
  // The request flags of a run that gives none: default timeout and retries, PETSTORE_DEBUG.
  const request = { ...requestOptionsFrom({}, factory.env), settings: flags };
  let rateLimit;
  try {
    const { client } = await factory.client(request, options);
    rateLimit = (await client.listPets({ limit: 1 })).response.rateLimit;
  } catch (error) {
    throw notStored(error);
  }
  return `The service accepted the key. Rate limit: ${describeRateLimit(rateLimit, factory.now())}\n`;
}
