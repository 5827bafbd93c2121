/**
 * Error identity across bundles. Each bundle in dist/ carries its own copy of
 * every module it includes, so an error class exists once per bundle, and a
 * program that both imports and requires petstore-cli holds two copies of each.
 * A class's kind, under a registered symbol, is the same string in every copy:
 * `instanceof` a KindedError compares kinds, so an error made by one copy is an
 * instance of the same class (and its parents) in any other, and of no other
 * class. Each subclass declares its own kind (test/dist/error-identity.test.ts
 * checks); the kind is also the error's `name`. See docs/design.md, "Error identity
 * across bundles".
 */
export const ERROR_KIND: unique symbol = Symbol.for("petstore-cli.error-kind");

/** The kind `type` declares itself; none for a subclass that declares none (its static is inherited). */
function ownKind(type: unknown): unknown {
  return typeof type === "function" && Object.hasOwn(type, ERROR_KIND)
    ? Reflect.get(type, ERROR_KIND)
    : undefined;
}

function hasKind(type: object, value: unknown): boolean {
  const kind = ownKind(type);
  if (kind === undefined) return Function.prototype[Symbol.hasInstance].call(type, value);
  let proto: object | null = Object(value) === value ? Object.getPrototypeOf(value) : null;
  for (; proto !== null; proto = Object.getPrototypeOf(proto) as object | null) {
    if (
      Object.hasOwn(proto, "constructor") &&
      ownKind(Reflect.get(proto, "constructor")) === kind
    ) {
      return true;
    }
  }
  return false;
}

export class KindedError extends Error {
  static [ERROR_KIND] = "KindedError";
  static override [Symbol.hasInstance](value: unknown): boolean {
    return hasKind(this, value);
  }
  constructor(message: string) {
    super(message);
    this.name = (new.target as typeof KindedError)[ERROR_KIND];
  }
}
