/** The global that swagger-ui-dist's swagger-ui-bundle.js defines (only what the page uses). */
interface SwaggerUIOptions {
  url: string;
  domNode: HTMLElement;
  presets: unknown[];
  layout: string;
  validatorUrl: null;
  deepLinking: boolean;
  docExpansion: "list" | "full" | "none";
  defaultModelsExpandDepth: number;
  tryItOutEnabled: boolean;
  displayRequestDuration: boolean;
  syntaxHighlight: { activated: boolean; theme?: string };
}

interface Window {
  SwaggerUIBundle?: ((options: SwaggerUIOptions) => unknown) & { presets: { apis: unknown } };
}
