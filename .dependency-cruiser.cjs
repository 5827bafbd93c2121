/* global module */
/**
 * The dependency rules of src/, checked by `npm run lint` through
 * scripts/check-dependencies.mjs (so `npm test` fails on a broken rule), which adds
 * no-folder-cycle: folders, and the files at the root of src/, form layers.
 * Type-only imports count (tsPreCompilationDeps). docs/design.md explains the layers;
 * test/architecture/ checks that each rule really fails on a forbidden import.
 */
module.exports = {
  forbidden: [
    {
      name: "no-module-cycle",
      comment:
        "No module imports one that (indirectly) imports it. A lazy registry's import() of a command is not a cycle: it is how the command is loaded.",
      severity: "error",
      from: { path: "^src/" },
      to: { circular: true, viaOnly: { dependencyTypesNot: ["dynamic-import"] } },
    },
    {
      name: "schema-is-a-leaf",
      comment: "schema/ is the one module client and server share; it imports nothing of theirs.",
      severity: "error",
      from: { path: "^src/schema/" },
      to: { path: "^src/", pathNot: "^src/schema/" },
    },
    {
      name: "files-is-a-leaf",
      comment:
        "files/ (file safety, atomic writes, the lock) is shared by client and server; it imports schema/ and nothing else of theirs.",
      severity: "error",
      from: { path: "^src/files/" },
      to: { path: "^src/", pathNot: "^src/(files|schema)/" },
    },
    {
      name: "server-imports-only-schema-and-files",
      comment:
        "The fake shares the schema module and the file-safety code with the client, and nothing else.",
      severity: "error",
      from: { path: "^src/server/" },
      to: { path: "^src/", pathNot: "^src/(server|schema|files)/" },
    },
    {
      name: "only-serve-imports-server",
      comment:
        "Only the serve command's thin entry (and the library entry) load the server, so no other command pays for it; serve-defaults.ts has no imports (`petstore verdict` reads its defaults).",
      severity: "error",
      from: { path: "^src/", pathNot: "^src/(server/|commands/serve\\.ts$|index\\.ts$)" },
      to: { path: "^src/server/", pathNot: "^src/server/serve-defaults\\.ts$" },
    },
    {
      name: "client-stays-below-the-commands",
      comment: "The client is a library: it never imports commands, bulk, output or the server.",
      severity: "error",
      from: { path: "^src/client/" },
      to: { path: "^src/(commands|bulk|output|server|completion)/" },
    },
    {
      name: "profiles-below-the-client",
      comment:
        "commands -> client -> profiles: profiles never import the client or anything above it.",
      severity: "error",
      from: { path: "^src/profiles/" },
      to: { path: "^src/(client|commands|bulk|output|server|completion)/" },
    },
    {
      name: "bulk-below-the-commands",
      comment: "The bulk engine takes options, not flags: it never imports commands.",
      severity: "error",
      from: { path: "^src/bulk/" },
      to: { path: "^src/(commands|completion|server)/" },
    },
    {
      name: "output-is-presentation-only",
      comment: "Output formatting depends on data, not on how it was fetched.",
      severity: "error",
      from: { path: "^src/output/" },
      to: { path: "^src/(commands|client|bulk|profiles|server|completion)/" },
    },
    {
      name: "completion-reads-the-tree-only",
      comment: "Completion works on the commander tree it is given.",
      severity: "error",
      from: { path: "^src/completion/" },
      to: { path: "^src/", pathNot: "^src/completion/" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "node_modules" },
    tsConfig: { fileName: "tsconfig.json" },
    tsPreCompilationDeps: true,
    combinedDependencies: false,
  },
};
