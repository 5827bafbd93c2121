/**
 * How the control plane's OpenAPI document (scripts/openapi/admin.ts) names and
 * describes the zod schemas of its answers: a schema named here is a component of
 * that name. Answers are plain objects, so a client does not break on a field
 * added later; the verdict's (../verdict.ts) are made with these too.
 */
import * as z from "zod/mini";

/** The schemas the document names in its components. */
export const ADMIN_SCHEMAS = z.registry<{ id: string }>();

export function named<S extends z.ZodMiniType>(id: string, schema: S): S {
  ADMIN_SCHEMAS.add(schema, { id });
  return schema;
}

export const described = <S extends z.ZodMiniType>(schema: S, description: string): S =>
  schema.check(z.describe(description)) as S;

export const count = () => z.int().check(z.gte(0));
