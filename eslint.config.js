import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["dist/", "node_modules/", "coverage/", ".bench/", ".tmp/", ".cache/", ".demo/"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: "readonly",
        console: "readonly",
        Buffer: "readonly",
        setTimeout: "readonly",
        clearTimeout: "readonly",
        setInterval: "readonly",
        clearInterval: "readonly",
        setImmediate: "readonly",
        URL: "readonly",
        URLSearchParams: "readonly",
        performance: "readonly",
      },
    },
    rules: {
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_" },
      ],
      "no-console": "off",
    },
  },
  {
    // zod's internals change between releases; its public API (issues, z.toJSONSchema) is enough.
    files: ["src/**/*.ts"],
    rules: {
      "no-restricted-syntax": [
        "error",
        {
          selector: "MemberExpression[property.name='_zod']",
          message: "zod's private internals: use its public API (issues, z.toJSONSchema)",
        },
      ],
    },
  },
  {
    // The CLI writes through IO (src/io.ts), so tests can capture it and a failed
    // write is handled in one place; only the entry points and io.ts touch the
    // process streams. The server keeps its own log sink.
    files: ["src/**/*.ts"],
    ignores: ["src/io.ts", "src/io/**", "src/cli.ts", "src/index.ts", "src/server/**"],
    rules: {
      "no-restricted-properties": [
        "error",
        { object: "process", property: "stdout", message: "write through IO (src/io.ts)" },
        { object: "process", property: "stderr", message: "write through IO (src/io.ts)" },
      ],
    },
  },
);
