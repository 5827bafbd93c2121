/**
 * The API reference: Swagger UI (swagger-ui-dist, served by the fake) on the
 * fake's own document (/v1/openapi.json, read through /__home/openapi.json so the
 * page's read is not journaled), whose first server is this fake, so "Try it
 * out" reaches it. No validator badge: that would call validator.swagger.io.
 */
import { byId, el } from "./dom.js";

export function showReference(openApiUrl: string): void {
  const target = byId("reference");
  const swagger = window.SwaggerUIBundle;
  if (swagger === undefined) {
    target.replaceChildren(
      el("p", { class: "empty" }, "The reference could not load (swagger-ui-bundle.js)."),
    );
    return;
  }
  target.replaceChildren();
  swagger({
    url: openApiUrl,
    domNode: target,
    presets: [swagger.presets.apis],
    layout: "BaseLayout",
    validatorUrl: null,
    deepLinking: false,
    docExpansion: "list",
    defaultModelsExpandDepth: 0,
    tryItOutEnabled: false,
    displayRequestDuration: true,
    syntaxHighlight: { activated: true, theme: "agate" },
  });
}
