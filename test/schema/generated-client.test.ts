/**
 * A TypeScript client generated from the served document, as an app developer
 * would make one: openapi-typescript writes the types from
 * `GET /v1/openapi.json`, tsc type-checks a small openapi-fetch script against
 * them (and refuses one that breaks the contract), and the script lists, adds and
 * gets pets on a real `petstore serve`, at the URL the document's first server names.
 */
import { execFile } from "node:child_process";
import { readFile, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../server/cli-build.js";
import { call } from "../server/http.js";
import { HEAVY_HANG_MS } from "../limits.js";
import { SERVE_KEY, startServe, type ServeProcess } from "./serve-process.js";

const run = promisify(execFile);
const OPENAPI_TYPESCRIPT = join(REPO_ROOT, "node_modules", "openapi-typescript", "bin", "cli.js");
const TSC = join(REPO_ROOT, "node_modules", "typescript", "bin", "tsc");

const TSCONFIG = {
  compilerOptions: {
    target: "ES2022",
    module: "NodeNext",
    moduleResolution: "NodeNext",
    strict: true,
    // The generated types are a .ts file, so they are checked; libraries are not.
    skipLibCheck: true,
    lib: ["ES2023", "DOM"],
    types: ["node"],
    outDir: "out",
  },
  files: ["client.ts", "petstore.ts"],
};

const CLIENT = `import createClient from "openapi-fetch";
import type { components, paths } from "./petstore.js";

type Pet = components["schemas"]["Pet"];
type PetStatus = components["schemas"]["PetStatus"];

const [baseUrl, key] = process.argv.slice(2) as [string, string];
const client = createClient<paths>({ baseUrl, headers: { Authorization: \`Bearer \${key}\` } });

const status: PetStatus = "available";
const list = await client.GET("/pets", { params: { query: { limit: 2, status } } });
if (list.error !== undefined) throw new Error(list.error.message);
const page: Pet[] = list.data;

const added = await client.POST("/pets", {
  body: { name: "Generated", categoryId: 7, status: "pending" },
});
if (added.error !== undefined) throw new Error(added.error.message);
const location: string = added.response.headers.get("Location") ?? "";

const got = await client.GET("/pets/{petId}", { params: { path: { petId: added.data.id } } });
if (got.error !== undefined) throw new Error(got.error.message);

const missing = await client.GET("/pets/{petId}", { params: { path: { petId: 999999 } } });
const notFound = missing.error?.code;

console.log(JSON.stringify({ page, added: added.data, location, got: got.data, notFound }));
`;

/** Breaks the contract twice: a status that does not exist, a pet without categoryId. */
const WRONG = `import createClient from "openapi-fetch";
import type { paths } from "./petstore.js";
const client = createClient<paths>({ baseUrl: "http://127.0.0.1:1/v1" });
await client.GET("/pets", { params: { query: { status: "lost" } } });
await client.POST("/pets", { body: { name: "No category" } });
`;

let serve: ServeProcess;
let fakeUrl: string;

beforeAll(async () => {
  serve = await startServe(["--seed", "3"]);
  const doc = JSON.parse((await call(serve.baseUrl, "/v1/openapi.json")).text) as {
    servers: { url: string }[];
  };
  fakeUrl = doc.servers[0]!.url;
  await symlink(join(REPO_ROOT, "node_modules"), join(serve.dir, "node_modules"), "dir");
  await writeFile(join(serve.dir, "package.json"), '{ "type": "module" }\n');
  await writeFile(join(serve.dir, "client.ts"), CLIENT);
  await writeFile(join(serve.dir, "wrong.ts"), WRONG);
  await writeFile(join(serve.dir, "tsconfig.json"), JSON.stringify(TSCONFIG, null, 2));
  await run(
    process.execPath,
    [OPENAPI_TYPESCRIPT, `${serve.baseUrl}/openapi.json`, "--output", "petstore.ts"],
    { cwd: serve.dir },
  );
  await run(process.execPath, [TSC, "-p", "tsconfig.json"], { cwd: serve.dir });
}, HEAVY_HANG_MS);
afterAll(() => serve.stop());

describe("a client generated from the served document", () => {
  it("has one PetStatus type that Pet, NewPet and the status filter share", async () => {
    const types = await readFile(join(serve.dir, "petstore.ts"), "utf8");
    expect(types).toContain('PetStatus: "available" | "pending" | "sold";');
    expect(types.match(/"available" \| "pending" \| "sold"/g)).toHaveLength(1);
    expect(types.match(/status\?: components\["schemas"\]\["PetStatus"\]/g)).toHaveLength(3);
  });

  it(
    "type-checks a client (compiled before the tests) and refuses one that breaks the contract",
    async () => {
      expect(await readFile(join(serve.dir, "out", "client.js"), "utf8")).toContain(
        "openapi-fetch",
      );
      await writeFile(
        join(serve.dir, "tsconfig.wrong.json"),
        JSON.stringify({ ...TSCONFIG, files: ["wrong.ts", "petstore.ts"] }),
      );
      const refused = await run(process.execPath, [TSC, "-p", "tsconfig.wrong.json", "--noEmit"], {
        cwd: serve.dir,
      }).then(
        () => "compiled",
        (error: { stdout: string }) => error.stdout,
      );
      expect(refused).toMatch(/wrong\.ts\(4,.*"lost"/);
      expect(refused).toMatch(/wrong\.ts\(5,.*categoryId/);
    },
    HEAVY_HANG_MS,
  );

  it(
    "lists, adds and gets pets on the fake the document points at",
    async () => {
      expect(fakeUrl).toBe(serve.baseUrl);
      const { stdout } = await run(
        process.execPath,
        [join(serve.dir, "out", "client.js"), fakeUrl, SERVE_KEY],
        { cwd: serve.dir },
      );
      const result = JSON.parse(stdout) as {
        page: { status: string }[];
        added: { id: number; name: string; categoryId: number; status: string };
        location: string;
        got: unknown;
        notFound: string;
      };
      expect(result.page.length).toBeGreaterThan(0);
      expect(result.page.length).toBeLessThanOrEqual(2);
      for (const pet of result.page) expect(pet.status).toBe("available");
      expect(result.added).toEqual({
        id: 4,
        name: "Generated",
        categoryId: 7,
        status: "pending",
      });
      expect(result.location).toBe("/v1/pets/4");
      expect(result.got).toEqual(result.added);
      expect(result.notFound).toBe("pet_not_found");
    },
    HEAVY_HANG_MS,
  );
});
