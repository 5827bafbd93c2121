import { describe, expect, it } from "vitest";
import { parseJson } from "../../src/schema/json.js";
import { petToJson } from "../../src/schema/pet.js";
import {
  formatProblems,
  validateListQuery,
  validateNewPet,
  validatePetId,
} from "../../src/schema/validate.js";

function problemsOf(body: string): string {
  const result = validateNewPet(parseJson(body));
  if (result.ok) throw new Error("expected a validation failure");
  return formatProblems(result.problems);
}

describe("validateNewPet", () => {
  it("accepts a minimal pet and keeps categoryId exact", () => {
    const result = validateNewPet(parseJson('{"name":"Rex","categoryId":9223372036854775807}'));
    expect(result).toEqual({ ok: true, value: { name: "Rex", categoryId: 9223372036854775807n } });
  });

  it.each([
    ['{"categoryId":1}', "name is required"],
    ['{"name":"Rex"}', "categoryId is required"],
    ['{"name":"Rex","categoryId":1.5}', "categoryId must be an integer from"],
    ['{"name":"Rex","categoryId":1.5}', "got 1.5"],
    ['{"name":"Rex","categoryId":"123"}', 'got the string "123"'],
    ['{"name":"Rex","categoryId":9223372036854775808}', "got 9223372036854775808"],
    [
      '{"name":5,"categoryId":1}',
      "name must be a non-blank string of at most 200 characters; got 5",
    ],
    ['{"name":"   ","categoryId":1}', "name must be a non-blank string"],
    [
      '{"name":"Rex","categoryId":1,"status":"adopted"}',
      'status must be one of available, pending, sold; got "adopted"',
    ],
    [
      '{"name":"Rex","categoryId":1,"color":"red"}',
      "color unknown field; allowed: name, categoryId, status",
    ],
    ['{"name":"Rex","categoryId":1,"__proto__":{}}', "__proto__ unknown field"],
    ['{"name":"Rex","categoryId":1,"constructor":{}}', "constructor unknown field"],
    ["[]", "body must be a JSON object with name and categoryId; got an array"],
    ["null", "body must be a JSON object with name and categoryId; got null"],
    [
      '{"name":null,"categoryId":1}',
      "name must be a non-blank string of at most 200 characters; got null",
    ],
  ])("%s -> %s", (body, message) => {
    expect(problemsOf(body)).toContain(message);
  });

  it("reports every problem at once", () => {
    const result = validateNewPet(parseJson('{"status":"x","extra":1}'));
    expect(result.ok).toBe(false);
    if (!result.ok)
      expect(result.problems.map((p) => p.field).sort()).toEqual([
        "categoryId",
        "extra",
        "name",
        "status",
      ]);
  });

  it("names the length of an over-long name rather than echoing it", () => {
    expect(problemsOf(JSON.stringify({ name: "x".repeat(201), categoryId: 1 }))).toContain(
      "got 201 characters",
    );
  });

  it("counts a name's characters as code points, as JSON Schema's maxLength does", () => {
    const dog = "\u{1F415}";
    expect(validateNewPet({ name: dog.repeat(200), categoryId: 1n }).ok).toBe(true);
    expect(problemsOf(JSON.stringify({ name: dog.repeat(201), categoryId: 1 }))).toContain(
      "got 201 characters",
    );
  });

  it.each([
    ["1.0", 1n],
    ["1e3", 1000n],
    ["-2.5e1", -25n],
    ["2.5e0", undefined],
    ["-0.0", 0n],
    ["9007199254740991.0", 9007199254740991n],
  ])("reads categoryId %s as JSON Schema's integer does", (literal, expected) => {
    const result = validateNewPet(parseJson(`{"name":"Rex","categoryId":${literal}}`));
    if (expected === undefined) expect(result.ok).toBe(false);
    else expect(result).toEqual({ ok: true, value: { name: "Rex", categoryId: expected } });
  });

  it("asks for plain digits beyond 2^53 rather than guess a rounded integer", () => {
    expect(problemsOf('{"name":"Rex","categoryId":1e17}')).toBe(
      "categoryId must be written as plain digits beyond 9007199254740991 in size: with a fraction or exponent such an integer cannot be read exactly",
    );
  });
});

describe("validateListQuery", () => {
  it("defaults limit to 20", () => {
    expect(validateListQuery([])).toEqual({ ok: true, value: { limit: 20 } });
  });

  it("accepts limit and status", () => {
    expect(
      validateListQuery([
        ["limit", "100"],
        ["status", "sold"],
      ]),
    ).toEqual({
      ok: true,
      value: { limit: 100, status: "sold" },
    });
  });

  it.each([
    [[["limit", "0"]], 'limit must be an integer from 1 to 100; got "0"'],
    [[["limit", "101"]], "limit must be an integer from 1 to 100"],
    [[["limit", "1.5"]], "limit must be an integer from 1 to 100"],
    [[["limit", "abc"]], 'got "abc"'],
    [[["limit", ""]], "limit must be an integer from 1 to 100"],
    [[["status", "lost"]], 'status must be one of available, pending, sold; got "lost"'],
    [[["sort", "id"]], "sort unknown query parameter; allowed: limit, status"],
    [
      [
        ["limit", "1"],
        ["limit", "2"],
      ],
      "limit is given more than once",
    ],
  ] as [[string, string][], string][])("%j -> %s", (params, message) => {
    const result = validateListQuery(params);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(formatProblems(result.problems)).toContain(message);
  });
});

describe("validatePetId", () => {
  it.each(["1", "0", "-5", "9223372036854775807", "-9223372036854775808"])("accepts %s", (id) => {
    expect(validatePetId(id)).toEqual({ ok: true, value: BigInt(id) });
  });

  it.each(["abc", "1.5", "01", "", "9223372036854775808", "1e3", " 1"])("rejects %j", (id) => {
    const result = validatePetId(id);
    expect(result.ok).toBe(false);
    if (!result.ok)
      expect(formatProblems(result.problems)).toMatch(/^petId must be an integer from/);
  });
});

describe("petToJson", () => {
  it("writes fields in spec order with exact int64s", () => {
    expect(
      petToJson({
        id: 2n ** 60n,
        name: 'Rex "the dog"',
        categoryId: 9223372036854775807n,
        status: "sold",
      }),
    ).toBe(
      '{"id":1152921504606846976,"name":"Rex \\"the dog\\"","categoryId":9223372036854775807,"status":"sold"}',
    );
  });
});
