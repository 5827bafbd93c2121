/**
 * A real headless browser for the tests: Debian's `chromium` (installed by
 * npm test, scripts/system-packages.mjs), driven by playwright-core, which downloads nothing.
 * Flags as a sandboxed root CI machine needs them: no sandbox, no GPU, and no
 * background networking (this machine has no internet; Chromium would try).
 */
import { existsSync } from "node:fs";
import { chromium, type Browser } from "playwright-core";

export const CHROMIUM_PATH = process.env.PETSTORE_TEST_CHROMIUM ?? "/usr/bin/chromium";

export function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `no browser at ${CHROMIUM_PATH}: install Debian's chromium (apt-get install chromium), as npm test does as root`,
    );
  }
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--disable-dev-shm-usage",
    ],
  });
}
