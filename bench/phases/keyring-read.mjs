/**
 * What reading the key from the system keyring costs: `list --json` with the profile's key in
 * GNOME Keyring (on a private D-Bus session, scripts/secret-service.mjs) against the same with
 * the key in the config file, in paired rounds. The goal (issue 27) is a difference, not a
 * ratio: at most 20 ms more. The standalone binary (dist/petstore-linux-x64, when it is there
 * and newer than dist/cli.cjs; copied into the temp dir) is timed the same way: it also writes
 * its embedded binding to a temporary file and loads it from there.
 */
import { copyFile, mkdir, stat, writeFile } from "node:fs/promises";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { startSecretService } from "../../scripts/secret-service.mjs";
import { timeOnce } from "../lib/paired.mjs";
import { runToEnd } from "../lib/processes.mjs";
import { measured, notAvailable } from "../lib/report.mjs";
import { BENCH_KEY_FLAG } from "../lib/serve.mjs";
import { median } from "../lib/stats.mjs";

export const name = "keyring-read";
export const summary = "list --json with the key in GNOME Keyring vs in the config file";

const STORE_SIZE = 100;
/** `auth login` takes keys of 8 characters or more; the bench key is shorter. */
const LOGIN_KEY = "bench-keyring-key";
const GOAL = { on: "figure", op: "<=", value: 20 };

function measurement(what) {
  return `keyring read: ${what} list --json, key in GNOME Keyring minus key in the file`;
}

/** dist/petstore-linux-x64 copied into `tmp`, when it is there and not older than dist/cli.cjs. */
async function binaryCopy(repoRoot, tmp) {
  const binary = join(repoRoot, "dist", "petstore-linux-x64");
  const times = await Promise.all(
    [binary, join(repoRoot, "dist", "cli.cjs")].map((file) =>
      stat(file).then(
        (stats) => stats.mtimeMs,
        () => undefined,
      ),
    ),
  );
  if (times[0] === undefined || times[0] < (times[1] ?? 0)) return undefined;
  const copy = join(tmp, "keyring-petstore-linux-x64");
  await copyFile(binary, copy);
  return copy;
}

export async function run(ctx) {
  const { repoRoot, tmp, settings } = ctx;
  const missing = ["dbus-daemon", "gnome-keyring-daemon"].filter(
    (tool) => spawnSync("which", [tool]).status !== 0,
  );
  const serveState = missing.length > 0 ? undefined : await ctx.serve.available();
  const reason =
    missing.length > 0
      ? `${missing.join(" and ")} not installed (scripts/system-packages.mjs)`
      : serveState.reason;
  if (!serveState?.ok) {
    const row = { phase: name, measurement: measurement("petstore"), unit: "ms", goal: GOAL };
    ctx.record(notAvailable({ ...row, reason }));
    return;
  }

  const secrets = await startSecretService(join(tmp, "keyring-session"));
  const server = await ctx.serve.start(await ctx.pets.fresh(STORE_SIZE), {
    keys: [BENCH_KEY_FLAG, `${LOGIN_KEY}:enterprise`],
  });
  try {
    await secrets.startKeyring("unlocked");
    const bin = join(repoRoot, "bin", "petstore.js");
    // A desktop session's: the binary keeps its binding in XDG_RUNTIME_DIR between runs.
    const runtimeDir = join(tmp, "keyring-runtime");
    await mkdir(runtimeDir, { mode: 0o700 });
    const base = {
      PATH: process.env.PATH,
      NO_COLOR: "1",
      PETSTORE_BASE_URL: server.baseUrl,
      XDG_RUNTIME_DIR: runtimeDir,
      ...secrets.env,
    };
    const keyFile = join(tmp, "keyring-key.txt");
    await writeFile(keyFile, LOGIN_KEY);
    const dirs = {
      file: join(tmp, "keyring-file-config"),
      keyring: join(tmp, "keyring-keyring-config"),
    };
    for (const [store, dir] of Object.entries(dirs)) {
      await mkdir(dir, { recursive: true });
      const flags = store === "file" ? ["--insecure-storage"] : [];
      const login = await runToEnd(
        process.execPath,
        [bin, "auth", "login", "--api-key-file", keyFile, "--no-verify", ...flags],
        { cwd: tmp, env: { ...base, PETSTORE_CONFIG_DIR: dir } },
      );
      const expected = store === "file" ? "config.json" : "the Secret Service keyring";
      if (login.code !== 0 || !login.stderr.includes(expected)) {
        throw new Error(`auth login (${store}) failed: ${login.stderr.trim()}`);
      }
    }
    const binary = await binaryCopy(repoRoot, tmp);
    const programs = [["petstore", [process.execPath, bin]]];
    if (binary) programs.push(["petstore-linux-x64", [binary]]);
    const subject = (command, args, dir) => ({
      command,
      args: [...args, "list", "--json"],
      env: { ...base, PETSTORE_CONFIG_DIR: dir },
      cwd: tmp,
    });
    ctx.log(`timing list --json with the key in the file and in GNOME Keyring: paired runs`);
    const results = {};
    for (const [label, [command, ...args]] of programs) {
      const pair = [subject(command, args, dirs.file), subject(command, args, dirs.keyring)];
      // A difference of a few ms between runs of 150 ms or more: each round runs both, in
      // turns of order, and the figure is the median of the rounds' differences.
      const rounds = 3 * settings.cliRuns;
      const differences = [];
      const times = { file: [], keyring: [] };
      let failures = 0;
      for (let round = 0; round < settings.cliWarmups + rounds; round++) {
        const order = round % 2 === 0 ? [0, 1] : [1, 0];
        const runs = [];
        for (const index of order) runs[index] = await timeOnce(pair[index]);
        if (round < settings.cliWarmups) continue;
        if (runs.some((one) => one.code !== 0)) {
          failures++;
          continue;
        }
        times.file.push(runs[0].ms);
        times.keyring.push(runs[1].ms);
        differences.push(runs[1].ms - runs[0].ms);
      }
      results[label] = { differences, times };
      ctx.record(
        measured({
          phase: name,
          measurement: measurement(label),
          figure: median(differences),
          unit: "ms",
          baseline: median(times.file),
          baselineLabel: "key in the file",
          goal: GOAL,
          notes: [
            `median of ${differences.length} paired rounds; medians ${median(times.keyring).toFixed(1)} ms with the keyring, ${median(times.file).toFixed(1)} ms with the file`,
            ...(failures > 0 ? [`${failures} round(s) with a run that exited non-zero`] : []),
          ],
        }),
      );
    }
    ctx.detail("keyring", results);
  } finally {
    await server.stop();
    await secrets.close();
  }
}
