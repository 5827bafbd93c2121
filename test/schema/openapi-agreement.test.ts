/**
 * The document and the fake agree on what a NewPet is: each body below is judged
 * by a JSON Schema validator (ajv, draft 2020-12) over the served document and by
 * a real `petstore serve`, and both must accept it or both refuse it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call } from "../server/http.js";
import { documentValidator, type DocumentValidator } from "./openapi-ajv.js";
import { SERVE_KEY, startServe, type ServeProcess } from "./serve-process.js";

let serve: ServeProcess;
let validator: DocumentValidator;

beforeAll(async () => {
  serve = await startServe();
  const answer = await call(serve.baseUrl, "/v1/openapi.json");
  validator = documentValidator(JSON.parse(answer.text) as object);
});
afterAll(() => serve.stop());

const body = (name: unknown, categoryId: string, rest = "") =>
  `{"name":${JSON.stringify(name)},"categoryId":${categoryId}${rest}}`;
const emoji = "\u{1F415}"; // one code point, two UTF-16 code units

/** [label, JSON text]. */
const BODIES: [string, string][] = [
  ["a plain pet", body("Rex", "1")],
  ["a status", body("Rex", "1", ',"status":"pending"')],
  ["a status in capitals", body("Rex", "1", ',"status":"SOLD"')],
  ["a null status", body("Rex", "1", ',"status":null')],
  ["a blank name of spaces", body("   ", "1")],
  ["a blank name of tab and newline", body("\t\n", "1")],
  ["a blank name of no-break and ideographic spaces", body("\u00a0\u3000", "1")],
  ["a name of a zero-width space (not white space)", body("\u200b", "1")],
  ["a name with spaces around", body("  Rex  ", "1")],
  ["an empty name", body("", "1")],
  ["a name of 200 characters", body("x".repeat(200), "1")],
  ["a name of 201 characters", body("x".repeat(201), "1")],
  ["a name of 200 emoji (400 UTF-16 units)", body(emoji.repeat(200), "1")],
  ["a name of 201 emoji", body(emoji.repeat(201), "1")],
  ["a name that is a number", '{"name":5,"categoryId":1}'],
  ["categoryId 1.0", body("Rex", "1.0")],
  ["categoryId 1e3", body("Rex", "1e3")],
  ["categoryId 1E+3", body("Rex", "1E+3")],
  ["categoryId 10e-1", body("Rex", "10e-1")],
  ["categoryId -0.0", body("Rex", "-0.0")],
  ["categoryId -0", body("Rex", "-0")],
  ["categoryId 1.5", body("Rex", "1.5")],
  ["categoryId 1e-1", body("Rex", "1e-1")],
  ["categoryId 1e400", body("Rex", "1e400")],
  ["categoryId 2^53-1", body("Rex", "9007199254740991")],
  ["categoryId -(2^53-1) with a fraction", body("Rex", "-9007199254740991.0")],
  ["categoryId as a string", body("Rex", '"1"')],
  ["categoryId null", body("Rex", "null")],
  ["categoryId true", body("Rex", "true")],
  ["no categoryId", '{"name":"Rex"}'],
  ["no name", '{"categoryId":1}'],
  ["an id", body("Rex", "1", ',"id":7')],
  ["an unknown field", body("Rex", "1", ',"tags":[]')],
  ["a __proto__ member", '{"__proto__":{},"name":"Rex","categoryId":1}'],
  ["an array", "[]"],
  ["a string", '"Rex"'],
  ["null", "null"],
];

describe("the served document and the fake agree on NewPet", () => {
  it.each(BODIES)("%s", async (_label, text) => {
    const validate = validator.schema("#/components/schemas/NewPet");
    const documentAccepts = validate(JSON.parse(text));
    const answer = await call(serve.baseUrl, "/v1/pets", { key: SERVE_KEY, body: text });
    expect([201, 400], answer.text).toContain(answer.status);
    const fakeAccepts = answer.status === 201;
    expect(
      { fakeAccepts, documentAccepts },
      `${answer.text} ${JSON.stringify(validate.errors)}`,
    ).toEqual({ fakeAccepts: documentAccepts, documentAccepts });
  });

  it("stores an integer written with a fraction or exponent as its exact value", async () => {
    const answer = await call(serve.baseUrl, "/v1/pets", {
      key: SERVE_KEY,
      body: body("Ten", "1e1"),
    });
    expect(answer.status).toBe(201);
    expect(answer.text).toMatch(/"categoryId":10[,}]/);
  });

  // Beyond 2^53 a validator that reads JSON numbers as doubles cannot tell
  // neighbouring integers apart (9223372036854775807 and ...808 are one double);
  // the fake reads digits exactly and so is the stricter of the two there.
  it("beyond 2^53: plain digits are exact to int64, fractions and exponents are refused", async () => {
    const post = (categoryId: string) =>
      call(serve.baseUrl, "/v1/pets", { key: SERVE_KEY, body: body("Big", categoryId) });
    const max = await post("9223372036854775807");
    expect(max.status).toBe(201);
    expect(max.text).toContain('"categoryId":9223372036854775807');
    expect((await post("9223372036854775808")).status).toBe(400);
    const exponent = await post("1e17");
    expect(exponent.status).toBe(400);
    expect(exponent.text).toContain("plain digits");
    expect((await post("9007199254740993.0")).status).toBe(400);
  });
});
