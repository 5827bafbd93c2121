// The README's first command ends here: start `petstore serve` on a demo JSON
// file, show `petstore list --status available` against it, stop the server.
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const cli = `${root}bin/petstore.js`;
// The README's tour uses the same key, so the closing hint leads straight into it.
const key = "dev-key-1";
// PETSTORE_DEMO_DIR: where a test runs the demo, instead of the repository's .demo/.
const dir = process.env.PETSTORE_DEMO_DIR ?? `${root}.demo`;
const file = `${dir}/pets.json`;
mkdirSync(dir, { recursive: true });

const server = spawn(
  process.execPath,
  [cli, "serve", "--file", file, "--seed", "40", "--port", "0", "--key", `${key}:pro`, "--quiet"],
  { stdio: ["ignore", "pipe", "inherit"] },
);
const url = await new Promise((resolve, reject) => {
  let out = "";
  server.stdout.on("data", (chunk) => {
    out += chunk;
    if (out.includes("\n")) resolve(out.split("\n")[0]);
  });
  server.on("exit", (code) => reject(new Error(`petstore serve exited with code ${code}`)));
});

const env = { ...process.env, PETSTORE_BASE_URL: url, PETSTORE_API_KEY: key };
console.error(
  `\n$ PETSTORE_BASE_URL=${url} PETSTORE_API_KEY=${key} petstore list --status available\n`,
);
const list = spawnSync(process.execPath, [cli, "list", "--status", "available"], {
  env,
  stdio: "inherit",
});
server.kill("SIGTERM");
await new Promise((resolve) => server.on("exit", resolve));
console.error(
  `\nThat was a local fake on ${file}. Next: \`node bin/petstore.js serve --file ${file} --key ${key}:pro\` ` +
    "in one terminal, then the tour in README.md.",
);
process.exitCode = list.status ?? 1;
