/**
 * Reading the key for `auth login`: from stdin, a file or a hidden prompt, at
 * most 4 KiB of it (endless input such as /dev/zero is refused, not read
 * forever), and only a key that looks like one: one word of visible ASCII, at
 * least 8 characters (shorter ones would be redacted badly and are typos).
 */
import { createReadStream } from "node:fs";
import { EXIT, PetstoreError, UsageError } from "../../errors.js";
import { whyUnreadable } from "../../files/file-kind.js";
import type { IO } from "../../io.js";
import { isKeyText } from "../../profiles/key-text.js";

const MAX_KEY_INPUT_BYTES = 4096;
const MIN_KEY_LENGTH = 8;

export const KEY_HINT =
  "pipe the key in with --with-token, or use --api-key-file; a flag value would show it in the process list";

/** Collects the input, stopping (and closing it) as soon as it passes the limit (checkedKey refuses it). */
async function readCapped(chunks: AsyncIterable<Uint8Array>): Promise<string> {
  const parts: Buffer[] = [];
  let length = 0;
  for await (const chunk of chunks) {
    parts.push(Buffer.from(chunk));
    length += chunk.length;
    if (length > MAX_KEY_INPUT_BYTES) break;
  }
  return Buffer.concat(parts).toString("utf8");
}

async function readKeyFile(path: string): Promise<string> {
  const file = createReadStream(path, { highWaterMark: MAX_KEY_INPUT_BYTES + 1 });
  return readCapped(file).catch((error: unknown) => {
    throw new UsageError(`--api-key-file ${path} cannot be read (${whyUnreadable(error)})`);
  });
}

/** The key, trimmed of the white space around it (a newline from `echo`); never part of a message. */
function checkedKey(text: string): string {
  // A cut UTF-8 sequence decodes to U+FFFD, which is no shorter: text past the limit stays past it.
  if (Buffer.byteLength(text) > MAX_KEY_INPUT_BYTES) {
    throw new UsageError(
      `the API key is longer than ${MAX_KEY_INPUT_BYTES} bytes (petstore reads at most 4 KiB of it)`,
      "check that stdin or --api-key-file holds only the key",
    );
  }
  const key = text.trim();
  if (key === "") throw new UsageError("the API key is empty", KEY_HINT);
  if (!isKeyText(key)) {
    throw new UsageError(
      "the API key contains spaces or control characters; a key is one word",
      KEY_HINT,
    );
  }
  if (key.length < MIN_KEY_LENGTH) {
    throw new UsageError(
      `the API key is ${key.length} characters long; a key has at least ${MIN_KEY_LENGTH}`,
      "check that the whole key was copied",
    );
  }
  return key;
}

/** The key of `--with-token` (stdin), `--api-key-file`, else of the hidden prompt. */
export async function readKey(
  flags: { withToken?: boolean; apiKeyFile?: string },
  io: IO,
): Promise<string> {
  if (flags.withToken) return checkedKey(await readCapped(io.stdin.chunks()));
  if (flags.apiKeyFile !== undefined) return checkedKey(await readKeyFile(flags.apiKeyFile));
  const prompt = io.stdin.readHiddenLine("API key (input hidden): ");
  const text = await prompt.catch((error: NodeJS.ErrnoException) => {
    // Ctrl-C: stopped by the user, as a shell reports it (130); Ctrl-D: no key.
    throw error.code === "ABORT_ERR"
      ? new PetstoreError("interrupted; no key was stored", EXIT.INTERRUPTED)
      : new UsageError("no API key entered");
  });
  return checkedKey(text);
}
