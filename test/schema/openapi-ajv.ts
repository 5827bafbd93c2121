/**
 * The served OpenAPI document as a JSON Schema validator sees it: ajv in draft
 * 2020-12 mode (the dialect of OpenAPI 3.1) with ajv-formats, every component
 * schema reachable by its `#/components/schemas/<name>` pointer.
 */
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";

// ajv-formats is CommonJS with a default export; under NodeNext it arrives wrapped.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

const DOCUMENT_ID = "https://petstore.test/openapi.json";
/** The OpenAPI members around the schemas: annotations to ajv, never validated. */
const OPENAPI_KEYWORDS = ["openapi", "info", "servers", "security", "paths", "components"];

export interface DocumentValidator {
  /** A validator for a schema of the document, by JSON pointer (`#/components/schemas/NewPet`). */
  schema(pointer: string): ValidateFunction;
  /** A validator for a schema object found anywhere in the document (resolving its $refs). */
  inline(schema: object): ValidateFunction;
}

export function documentValidator(document: object): DocumentValidator {
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  addFormats(ajv);
  ajv.addVocabulary(OPENAPI_KEYWORDS);
  ajv.addSchema({ ...document, $id: DOCUMENT_ID });
  let inlineCount = 0;
  return {
    schema(pointer) {
      const validate = ajv.getSchema(DOCUMENT_ID + pointer);
      if (validate === undefined) throw new Error(`no schema at ${pointer}`);
      return validate;
    },
    inline(schema) {
      // Relative $refs ("#/components/...") resolve against the document.
      return ajv.compile({
        ...withAbsoluteRefs(schema),
        $id: `${DOCUMENT_ID}/inline/${inlineCount++}`,
      });
    },
  };
}

function withAbsoluteRefs(value: unknown): object {
  return JSON.parse(
    JSON.stringify(value, (key, member: unknown) =>
      key === "$ref" && typeof member === "string" && member.startsWith("#")
        ? DOCUMENT_ID + member
        : member,
    ),
  ) as object;
}
