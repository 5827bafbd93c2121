/**
 * The control plane's own OpenAPI 3.1 document, at `GET /__admin/openapi.json`,
 * made from the route table (operations.ts, routes.ts): each route's path, method, summary
 * and parameters, the schemas of its body and answers (generated from the zod
 * schemas named in ADMIN_SCHEMAS, as `/v1`'s are), and the errors it answers. It
 * is kept out of the service's document (`/v1/openapi.json`): the control plane
 * belongs to the fake, not to the API it fakes.
 */
import { STATUS_CODES } from "node:http";
import * as z from "zod/mini";
import { ADMIN_SCHEMAS, ErrorAnswer } from "./bodies.js";

type Json = Record<string, unknown>;

/** What the document says of a route (routes.ts's AdminRoute adds its handler). */
export interface DocumentedRoute {
  method: "GET" | "POST" | "PUT" | "DELETE";
  /** A path under /__admin; `{key}` is a path parameter, the rest of the path. */
  path: string;
  operationId: string;
  summary: string;
  /** The body it takes; one that takes undefined may be left out. */
  body?: z.ZodMiniType;
  parameters?: readonly Record<string, unknown>[];
  /** The schema of each answer that is not an error (null: no body). */
  answers: Record<number, z.ZodMiniType | null>;
  /** The errors it answers besides those every route answers, and every route with a body. */
  errors?: Record<number, string>;
}

const EVERY_ROUTE_ERRORS = {
  401: "admin_unauthorized: the fake has an --admin-token and it was not sent",
  403: "admin_forbidden: a page of another origin, or a Host that is not loopback",
  404: "not_found: the control plane is off (not on loopback, no --admin-token)",
  405: "method_not_allowed",
};
const BODY_ERRORS = {
  400: "invalid_admin_request (names the field), invalid_json or empty_body",
  413: "payload_too_large: over 1 MiB",
  415: "unsupported_media_type: not application/json",
};

function jsonSchema(schema: z.ZodMiniType): Json {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, { target: "draft-2020-12", io: "input" });
  return rest;
}

/** A JSON body of `schema`: a reference to its component when it is named, else inline. */
function content(schema: z.ZodMiniType): Json {
  const id = ADMIN_SCHEMAS.get(schema)?.id;
  const ref = id === undefined ? jsonSchema(schema) : { $ref: `#/components/schemas/${id}` };
  return { "application/json": { schema: ref } };
}

function operation(route: DocumentedRoute): Json {
  const responses: Json = {};
  for (const [status, schema] of Object.entries(route.answers)) {
    const description = STATUS_CODES[status];
    responses[status] =
      schema === null ? { description } : { description, content: content(schema) };
  }
  const errors = { ...EVERY_ROUTE_ERRORS, ...(route.body && BODY_ERRORS), ...route.errors };
  for (const [status, description] of Object.entries(errors)) {
    responses[status] = { description, content: content(ErrorAnswer) };
  }
  const { body } = route;
  return {
    operationId: route.operationId,
    summary: route.summary,
    parameters: route.parameters,
    requestBody: body && { required: !body.safeParse(undefined).success, content: content(body) },
    responses,
  };
}

/** The component schemas: every schema named in ADMIN_SCHEMAS. */
function componentSchemas(): Record<string, Json> {
  const { schemas } = z.toJSONSchema(ADMIN_SCHEMAS, {
    target: "draft-2020-12",
    io: "input",
    uri: (id) => `#/components/schemas/${id}`,
  }) as { schemas: Record<string, Json> };
  for (const schema of Object.values(schemas)) {
    delete schema.$schema;
    delete schema.$id;
  }
  return schemas;
}

/** The document of `routes`; its `servers` are left for the fake's own origin. */
export function adminOpenApi(routes: readonly DocumentedRoute[]): Json {
  const paths: Record<string, Json> = {};
  for (const route of routes) {
    paths[route.path] = { ...paths[route.path], [route.method.toLowerCase()]: operation(route) };
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "petstore serve: control plane",
      version: "1.0.0",
      license: { name: "MIT", identifier: "MIT" },
      description:
        "Drives the local fake from test suites: reset, request journal, clock, faults, keys. " +
        "No credential on a loopback address; otherwise off unless --admin-token is given, " +
        "then Authorization: Bearer <token>.",
    },
    servers: [],
    security: [{}, { adminToken: [] }],
    paths,
    components: {
      schemas: componentSchemas(),
      securitySchemes: { adminToken: { type: "http", scheme: "bearer" } },
    },
  };
}
