import { ensureBuilt } from "./server/cli-build.js";

/** Build dist/ once, before any test file runs, so no file rebuilds it under another. */
export default async function setup(): Promise<void> {
  await ensureBuilt();
}
