/** Walking an OpenAPI document: its operations, their responses, `$ref`s resolved. */

export type Node = Record<string, unknown>;

export interface Operation {
  path: string;
  method: string;
  operation: Node;
}

/** The object a local `$ref` (`#/components/...`) points at, or the node itself. */
export function resolve(document: Node, node: unknown): Node {
  let current = node as Node;
  while (typeof current.$ref === "string") {
    const pointer = current.$ref;
    if (!pointer.startsWith("#/")) throw new Error(`not a local $ref: ${pointer}`);
    let target: unknown = document;
    for (const part of pointer.slice(2).split("/")) {
      target = (target as Node)[part.replace(/~1/g, "/").replace(/~0/g, "~")];
      if (target === undefined) throw new Error(`dangling $ref: ${pointer}`);
    }
    current = target as Node;
  }
  return current;
}

export function operations(document: Node): Operation[] {
  const result: Operation[] = [];
  for (const [path, item] of Object.entries(document.paths as Record<string, Node>)) {
    for (const [method, operation] of Object.entries(item)) {
      result.push({ path, method, operation: operation as Node });
    }
  }
  return result;
}

/** Each response of an operation, resolved, by status. */
export function responses(document: Node, operation: Node): [string, Node][] {
  return Object.entries(operation.responses as Node).map(([status, response]) => [
    status,
    resolve(document, response),
  ]);
}

/** Every object in the document, with its JSON pointer. */
export function* nodes(value: unknown, pointer = "#"): Generator<[string, Node]> {
  if (typeof value !== "object" || value === null) return;
  if (!Array.isArray(value)) yield [pointer, value as Node];
  for (const [key, member] of Object.entries(value)) {
    yield* nodes(member, `${pointer}/${key.replace(/~/g, "~0").replace(/\//g, "~1")}`);
  }
}
