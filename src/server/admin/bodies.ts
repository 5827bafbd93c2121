/**
 * How the control plane's JSON is described: its bodies and answers are zod
 * schemas with their words (checked strictly: an unknown field or a wrong type is
 * a 400 naming the field), and its OpenAPI document (routes.ts) is made from
 * them, a schema named here being a component of that name. Answers are plain
 * objects, so a client does not break on a field added later.
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
