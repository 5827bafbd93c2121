/**
 * What the API under /v1 serves: its routes, found from a request's path, and
 * the methods each allows (the `Allow` header of a 405).
 */

export const enum Route {
  None,
  Pets,
  Pet,
  OpenApi,
}

export const PET_PREFIX = "/v1/pets/";

export const ALLOW: Record<Route, string> = {
  [Route.None]: "",
  [Route.Pets]: "GET, HEAD, POST",
  [Route.Pet]: "GET, HEAD",
  [Route.OpenApi]: "GET, HEAD",
};

/** Every method the fake serves somewhere. */
export const ALL_METHODS = "GET, HEAD, POST";

export function routeOf(path: string): Route {
  if (path === "/v1/pets") return Route.Pets;
  if (path.startsWith(PET_PREFIX)) {
    return path.length > PET_PREFIX.length && path.indexOf("/", PET_PREFIX.length) === -1
      ? Route.Pet
      : Route.None;
  }
  return path === "/v1/openapi.json" ? Route.OpenApi : Route.None;
}

export function underV1(path: string): boolean {
  return path === "/v1" || path.startsWith("/v1/");
}
